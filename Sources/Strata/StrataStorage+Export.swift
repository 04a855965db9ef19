// `import Strata` brings the storage layer too: values, records, schema descriptions, plans and
// errors are part of the user API.
@_exported import StrataStorage
