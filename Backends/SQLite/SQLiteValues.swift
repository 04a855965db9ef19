import Foundation
import GRDB
import StrataStorage

/// How Strata values are stored in SQLite columns. Chosen so SQLite's own ordering matches the
/// contract: booleans as 0/1, dates as `timeIntervalSinceReferenceDate` (Date's own representation,
/// so it round-trips bit-exact), UUIDs as 16-byte BLOBs (memcmp order is byte order), text as UTF-8
/// TEXT compared with BINARY (Unicode scalar order), decimals as the ASCII of their sortable key
/// (``DecimalForm``: its byte order is the numeric order, so comparisons, ranges, indexes, `MIN`
/// and `MAX` are numeric; sums and averages are the engine's, exact).
enum SQLiteValues {
    static func databaseValue(_ value: Value) -> DatabaseValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .int(let number): return number.databaseValue
        case .double(let number): return number.databaseValue
        case .string(let text): return text.databaseValue
        case .date(let date): return date.timeIntervalSinceReferenceDate.databaseValue
        case .uuid(let uuid): return withUnsafeBytes(of: uuid.uuid) { Data($0) }.databaseValue
        case .data(let bytes): return bytes.databaseValue
        case .decimal(let number): return DecimalForm.sortableKey(number).databaseValue
        case .array, .dictionary, .document: return (CollectionForm.text(value) ?? "null").databaseValue
        }
    }

    /// Reads an array, set, dictionary or document column: canonical JSON text.
    static func value(_ stored: DatabaseValue, as type: AttributeType, element: AttributeType?) throws -> Value {
        switch stored.storage {
        case .null: return .null
        case .string(let text):
            guard let value = CollectionForm.value(json: text, type: type, element: element) else {
                throw StrataError(
                    .corruptStore, "a stored \"\(text.prefix(60))\" is not a \(type.rawValue) of its kind")
            }
            return value
        default:
            throw StrataError(.corruptStore, "a stored \(stored) cannot be read as \(type)")
        }
    }

    static func databaseValue(_ id: RecordID) -> DatabaseValue {
        databaseValue(id.value)
    }

    /// Reads a column whose kind the schema knows. A stored value of another storage class is corrupt data.
    static func value(_ stored: DatabaseValue, as type: AttributeType) throws -> Value {
        switch (stored.storage, type) {
        case (.null, _): return .null
        case (.int64(let number), .bool): return .bool(number != 0)
        case (.int64(let number), .int): return .int(number)
        case (.double(let number), .double): return .double(number)
        case (.int64(let number), .double): return .double(Double(number))
        case (.string(let text), .string): return .string(text)
        case (.string(let text), .file):
            guard FileReference.isCanonical(text) else {
                throw StrataError(.corruptStore, "a stored \"\(text.prefix(60))\" is not a file reference")
            }
            return .string(text)
        case (.double(let seconds), .date): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case (.int64(let seconds), .date): return .date(Date(timeIntervalSinceReferenceDate: Double(seconds)))
        case (.blob(let bytes), .uuid) where bytes.count == 16: return .uuid(uuid(bytes))
        case (.blob(let bytes), .data): return .data(bytes)
        case (.string(let key), .decimal):
            guard let number = DecimalForm.fromSortableKey(key) else {
                throw StrataError(.corruptStore, "a stored \"\(key.prefix(60))\" is not a decimal's key")
            }
            return .decimal(number)
        default:
            throw StrataError(.corruptStore, "a stored \(stored) cannot be read as \(type)")
        }
    }

    static func recordID(_ stored: DatabaseValue, kind: RecordID.Kind) throws -> RecordID {
        switch (stored.storage, kind) {
        case (.blob(let bytes), .uuid) where bytes.count == 16: return .uuid(uuid(bytes))
        case (.string(let text), .string): return .string(text)
        case (.int64(let number), .int): return .int(number)
        default: throw StrataError(.corruptStore, "a stored \(stored) is not a \(kind) ID")
        }
    }

    static func uuid(_ bytes: Data) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes.prefix(16)) }
        return UUID(uuid: raw)
    }

    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .bool, .int: "INTEGER"
        case .double, .date: "REAL"
        case .string, .file, .decimal, .array, .set, .dictionary, .document: "TEXT"
        case .uuid, .data: "BLOB"
        }
    }

    static func columnType(_ kind: RecordID.Kind) -> String {
        switch kind {
        case .uuid: "BLOB"
        case .string: "TEXT"
        case .int: "INTEGER"
        }
    }
}

/// GRDB has a `Record` class too; in this module `Record` is always Strata's.
typealias Record = StrataStorage.Record

/// SQL identifiers are always quoted; names come from the schema, never from values.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
