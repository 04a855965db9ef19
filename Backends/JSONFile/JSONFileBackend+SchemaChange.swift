import Foundation
import StrataInMemory
import StrataStorage
import Synchronization

/// Migrations on a JSON store: the live state migrates as the in-memory backend's does, and the
/// new document replaces the old one by the same atomic rename as a compaction, before the state
/// does. The journal is emptied into the old document first, so a crash at any moment leaves the
/// old document (with every save) or the new one, never old saves over a new document.
extension JSONFileBackend: SchemaChangingBackend {
    public func changeSchema<T: Sendable>(_ body: @escaping @Sendable (any SchemaChangeTransaction) throws -> T)
        async throws -> T
    {
        try checkOpen()
        try await compact()
        let (files, path) = (files, path)
        return try await memory.changeSchema(
            body,
            beforeCommit: { transaction in
                guard files.journalBytes.load(ordering: .relaxed) == 0 else {
                    throw StrataError(
                        .storageFailure,
                        "\(path): a save landed while the migration started; open the store again to retry it")
                }
                let document = try JSONDocument.encode(from: transaction)
                try Self.writeAtomically(document, to: path)
                files.documentBytes.store(document.count, ordering: .relaxed)
            })
    }
}
