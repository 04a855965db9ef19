import Foundation
import StrataInMemory
import StrataStorage

/// Migrations through a shadow copy on a JSON store: the store is compacted, its document copied
/// beside it and opened there, the copy migrated (its new document written as by any
/// migration), then renamed over the store's document, under the store's write lock. The whole
/// store is in memory whichever way it migrates: the copy buys the backup, not a smaller heap.
extension JSONFileBackend: ShadowMigratingBackend {
    /// The shadow copy's document beside the store's.
    static func shadowPath(_ path: String) -> String { path + ".strata-shadow" }

    /// The document with its journal, lock and unfinished compaction.
    static func files(_ path: String) -> [String] { [path, journalPath(path), path + ".lock", path + ".tmp"] }

    /// Never: the store is in memory whole, so a copy saves no memory.
    public func prefersShadowCopy() async throws -> Bool { false }

    public func makeShadowCopy() async throws -> ShadowCopy {
        try checkOpen()
        let (path, shadow, schema) = (path, Self.shadowPath(path), schema)
        return try await ShadowCopy.make(
            at: shadow, files: Self.files(shadow),
            write: {
                try await compact()
                do {
                    // Inside a write: no save lands between the compaction and the copy.
                    try await memory.write { _ in try FileManager.default.copyItem(atPath: path, toPath: shadow) }
                } catch {
                    throw StrataError(.storageFailure, underlying: error, "\(path) cannot be copied to \(shadow)")
                }
            },
            open: {
                try await JSONFileBackend.open(path: shadow, schema: schema)
            }, install: { backup in try Self.install(shadow, at: path, backup: backup) })
    }

    /// Renames the closed copy's document over the store's, holding the store's write lock.
    private static func install(_ shadow: String, at path: String, backup: String?) throws {
        guard !OpenFiles.isOpen(path) else {
            throw StrataError(
                .storeInUse,
                "\(path) is still open in this process; close every other handle onto it "
                    + "and migrate again")
        }
        let lock = Foundation.open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lock >= 0 else { throw StrataError(.storageFailure, "\(path).lock cannot be opened (errno \(errno))") }
        defer {
            flock(lock, LOCK_UN)
            Foundation.close(lock)
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            throw StrataError(.storeInUse, "\(path) is open in another process; close it there and migrate again")
        }
        // Closing compacts: saves left in the journal would belong to the old document.
        guard (StoreFiles.size(journalPath(path)) ?? 0) == 0, (StoreFiles.size(journalPath(shadow)) ?? 0) == 0 else {
            throw StrataError(
                .storageFailure,
                "\(path): saves are waiting in a journal; open the store and close it, then migrate again")
        }
        try StoreFiles.sync(shadow)
        if let backup {
            StoreFiles.remove([journalPath(backup)])
            try StoreFiles.keepBackup(of: path, at: backup)
        }
        try StoreFiles.replace(path, with: shadow)
        StoreFiles.remove([journalPath(shadow), shadow + ".lock", shadow + ".tmp"])
    }
}
