import Foundation
import Strata

/// Opens a store without the app's Swift types, with the schema the store holds.
enum StoredSchemaOpener {
    /// Opens the existing store at `url` with its stored schema. A store that does not exist
    /// yet is refused (opening it would create an empty one).
    static func open(_ url: String) async throws -> Store {
        try checkExists(url)
        return try await Store.openWithStoredSchema(url)
    }

    /// Refuses a URL that names no existing store (asking a file backend about a missing path
    /// would create an empty store there).
    static func checkExists(_ url: String) throws {
        let location = try StoreLocation(url)
        switch location.scheme {
        case "memory":
            throw StrataError(.notAStore, "a memory store is empty in a new process: nothing to open")
        case "sqlite", "lmdb", "json":
            guard FileManager.default.fileExists(atPath: location.path) else {
                throw StrataError(.notAStore, "there is no store at \(location.path)")
            }
        default:
            break
        }
    }
}
