import Foundation
import Strata

/// Opens a store without the app's Swift types, with the schema the store holds.
enum StoredSchemaOpener {
    /// Opens the existing store at `url` with its stored schema. A store that does not exist
    /// yet is refused (opening it would create an empty one).
    static func open(_ url: String) async throws -> Store {
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
        // A schema no store holds: the store refuses it and names the schema it holds.
        let probe = try Schema(entities: [EntityDescription(name: "StrataSchemaProbe\(UUID().uuidString.prefix(8))", idKind: .uuid, attributes: [])])
        do {
            let store = try await Store.open(url, schema: probe)
            try? await store.close()
            throw StrataError(.notAStore, "\(url) holds no schema (a new or empty store): nothing to open")
        } catch let error as StrataError {
            guard let mismatch = error.underlying as? StoredSchemaMismatch else { throw error }
            return try await Store.open(url, schema: try mismatch.stored.schema())
        }
    }
}
