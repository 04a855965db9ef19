import Foundation

/// File steps a file-backed backend needs to replace a store atomically (a migration's shadow
/// copy, a compaction): syncing, renaming with the directory synced, keeping a backup.
public enum StoreFiles {
    /// The process ID of another process holding a POSIX record lock on `byte` of `file`, if
    /// any: asked with `F_GETLK`, which takes nothing. This process's own locks never conflict, so
    /// only other processes are seen — how SQLite (the wal-index's lock every connection holds)
    /// and LMDB (the lock file's) tell that a store is open elsewhere.
    public static func otherProcessHolding(lockOn file: String, byte: Int) -> Int32? {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(byte)
        lock.l_len = 1
        guard fcntl(descriptor, F_GETLK, &lock) == 0, lock.l_type != Int16(F_UNLCK) else { return nil }
        return lock.l_pid
    }

    /// Flushes `path`'s data to disk (`fsync`).
    public static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure("\(path) cannot be opened to sync it", errno) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("\(path) cannot be synced", errno) }
    }

    /// Flushes the directory holding `path`, so a rename in it survives a power loss.
    public static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// Renames `source` over `destination` in one atomic step (both on one file system), then
    /// syncs the directory.
    public static func replace(_ destination: String, with source: String) throws {
        guard rename(source, destination) == 0 else {
            throw failure("\(source) cannot be renamed to \(destination)", errno)
        }
        syncDirectory(of: destination)
    }

    /// Makes `backup` hold `path`'s current content — a hard link when both are on one file
    /// system (no copy: the store's file is replaced by a rename, never written in place), a
    /// synced copy otherwise — replacing whatever `backup` held, atomically.
    public static func keepBackup(of path: String, at backup: String) throws {
        let temporary = backup + ".strata-tmp"
        unlink(temporary)
        if link(path, temporary) != 0 {
            do {
                try FileManager.default.copyItem(atPath: path, toPath: temporary)
                try sync(temporary)
            } catch let error as StrataError {
                throw error
            } catch {
                throw StrataError(.storageFailure, underlying: error, "the backup \(backup) cannot be written")
            }
        }
        try replace(backup, with: temporary)
    }

    /// Removes each of `paths` that exists (files or directories).
    public static func remove(_ paths: [String]) {
        for path in paths where FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    /// The size of the file at `path` in bytes, nil when it does not exist.
    public static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
    }

    private static func failure(_ message: String, _ code: Int32) -> StrataError {
        StrataError(isFull(errno: code) ? .diskFull : .storageFailure, "\(message): \(String(cString: strerror(code)))")
    }
}
