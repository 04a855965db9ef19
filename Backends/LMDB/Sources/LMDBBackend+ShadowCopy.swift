import CLMDB
import Foundation
import StrataStorage

/// Migrations through a shadow copy on LMDB: `mdb_env_copy2` writes a compact, consistent copy
/// of the environment into a directory beside it; the copy migrates committing each batch
/// (unsynced: its data file is synced once, whole, before it counts); closed, its `data.mdb`
/// replaces the store's by one `rename`. The store's lock file stays: the next open, alone on
/// the environment, initialises it afresh.
extension LMDBBackend: ShadowMigratingBackend {
    /// Stores whose data file uses more than this migrate through a shadow copy under
    /// `MigrationStrategy.automatic`: a write transaction keeps every page it writes in memory
    /// until it commits (and fails past about 512 MiB of them), and a migration rewrites the
    /// entities it rebuilds.
    static let shadowCopyThreshold = 128 << 20

    /// The shadow copy's directory beside the store's.
    static func shadowPath(_ path: String) -> String {
        (path.hasSuffix("/") ? String(path.dropLast()) : path) + ".strata-shadow"
    }

    static func dataFile(_ directory: String) -> String { directory + "/data.mdb" }
    static func lockFile(_ directory: String) -> String { directory + "/lock.mdb" }

    public func prefersShadowCopy() async throws -> Bool {
        try checkOpen()
        return environment.usage.used > Self.shadowCopyThreshold
    }

    public func makeShadowCopy() async throws -> ShadowCopy {
        try checkOpen()
        let (path, shadow, schema, environment) = (path, Self.shadowPath(path), schema, environment)
        let (used, map) = environment.usage
        // Room for the copy to grow without a resize: the map is only reserved address space.
        var options = options
        options.initialMapSize = max(map, used * 4, 1 << 30)
        options.noSync = true
        options.verifyStructureAtOpen = false
        return try await ShadowCopy.make(
            at: shadow, files: [shadow],
            write: {
                do {
                    try FileManager.default.createDirectory(atPath: shadow, withIntermediateDirectories: true)
                    try await onWriter { _ in
                        environment.resizeLock.readLock()
                        defer { environment.resizeLock.unlock() }
                        try check(mdb_env_copy2(environment.handle, shadow, UInt32(MDB_CP_COMPACT)))
                    }
                } catch {
                    throw Self.map(error, path: shadow)
                }
            },
            open: {
                try await LMDBBackend.open(path: shadow, schema: schema, options: options, isShadowCopy: true)
            }, install: { backup in try Self.install(shadow, at: path, backup: backup) })
    }

    /// Puts the closed copy's data file in the store's directory, the old one in `backup` first
    /// when given.
    private static func install(_ shadow: String, at path: String, backup: String?) throws {
        guard !LMDBEnvironment.isOpen(path) else {
            throw StrataError(
                .storeInUse,
                "\(path) is still open in this process; close every other handle onto it and migrate "
                    + "again")
        }
        if let holder = processHolding(path) {
            throw StrataError(.storeInUse, "\(path) is open in process \(holder); close it there and migrate again")
        }
        try StoreFiles.sync(dataFile(shadow))
        if let backup {
            do {
                try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
            } catch {
                throw StrataError(
                    .storageFailure, underlying: error, "the backup directory \(backup) cannot be created")
            }
            StoreFiles.remove([lockFile(backup)])
            try StoreFiles.keepBackup(of: dataFile(path), at: dataFile(backup))
        }
        try StoreFiles.replace(dataFile(path), with: dataFile(shadow))
        StoreFiles.remove([shadow])
    }

    /// Another process holding LMDB's lock on the environment's lock file (every process with the
    /// environment open holds at least a shared one on its first byte), by process ID.
    static func processHolding(_ path: String) -> Int32? {
        StoreFiles.otherProcessHolding(lockOn: lockFile(path), byte: 0)
    }

    /// Another process with the environment open: LMDB keeps a lock on the lock file for every
    /// process that has it open, and `F_GETLK` names one of them without taking anything.
    public func holderElsewhere() async throws -> String? {
        Self.processHolding(path).map { "process \($0)" }
    }
}
