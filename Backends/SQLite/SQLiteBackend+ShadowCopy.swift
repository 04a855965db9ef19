import Foundation
import GRDB
import StrataStorage

/// Migrations through a shadow copy on SQLite: `VACUUM INTO` writes a consistent, compact copy
/// of the store beside it; the copy migrates committing each batch (unsynced: it is synced once,
/// whole, before it counts); closed, it replaces the store's file by one `rename`.
extension SQLiteBackend: ShadowMigratingBackend {
    /// The shadow copy's path beside the store's.
    static func shadowPath(_ path: String) -> String { path + ".strata-shadow" }

    /// A file with its write-ahead log, shared-memory index and rollback journal.
    static func files(_ path: String) -> [String] { [path, path + "-wal", path + "-shm", path + "-journal"] }

    /// Never: SQLite spills what a transaction writes to its log, so an in-place migration's
    /// memory is bounded by the page cache already (measured: 12 MiB at 100k and at 1M records
    /// with an 8 MiB cache), and it is faster and needs no second copy on disk.
    public func prefersShadowCopy() async throws -> Bool { false }

    public func makeShadowCopy() async throws -> ShadowCopy {
        guard path != ":memory:" else {
            throw StrataError(
                .unsupportedStore,
                "sqlite::memory: has no file to copy; migrate it in place (MigrationStrategy.inPlace)")
        }
        let (path, shadow, schema, options) = (path, Self.shadowPath(path), schema, options)
        return try await ShadowCopy.make(
            at: shadow, files: Self.files(shadow),
            write: {
                try await run {
                    try await self.writer.writeWithoutTransaction { db in
                        try db.execute(sql: "VACUUM INTO ?", arguments: [shadow])
                        // The copy read the whole store through this connection's page cache: give
                        // it back, the copy's connection has one of its own.
                        try db.execute(sql: "PRAGMA shrink_memory")
                    }
                }
            },
            open: {
                try await SQLiteBackend.open(path: shadow, schema: schema, options: options, isShadowCopy: true)
            }, install: { backup in try Self.install(shadow, at: path, backup: backup) })
    }

    /// Puts the closed copy at `path`, the old store at `backup` first when given.
    private static func install(_ shadow: String, at path: String, backup: String?) throws {
        // SQLite deletes a write-ahead log when the last connection closes: one still there
        // means another connection (here or in another process) has the store open, and it
        // would go on writing into a file no longer at `path`.
        if FileManager.default.fileExists(atPath: path + "-wal") {
            throw StrataError(
                .storeInUse,
                "\(path) is still open elsewhere (its write-ahead log is in use); close every other handle onto it, in "
                    + "this process and others, and migrate again"
            )
        }
        if FileManager.default.fileExists(atPath: shadow + "-wal") {
            throw StrataError(.storageFailure, "the shadow copy \(shadow) is still open")
        }
        try StoreFiles.sync(shadow)
        if let backup {
            StoreFiles.remove([backup + "-wal", backup + "-shm", backup + "-journal"])
            try StoreFiles.keepBackup(of: path, at: backup)
        }
        // A shared-memory index left beside the store describes the old file's log.
        StoreFiles.remove([path + "-shm", shadow + "-shm"])
        try StoreFiles.replace(path, with: shadow)
    }
}
