import Foundation
import StrataStorage

/// Who else has a SQLite store open. In WAL mode every connection holds a shared lock on the
/// wal-index's "dead man switch" byte (byte 128 of `PATH-shm`, SQLite's documented unix locking)
/// for as long as it is open; `F_GETLK` asks whether a write lock there would conflict, which
/// takes nothing and names the holder's process. This process's own locks never conflict, so
/// only other processes are seen (other handles in this process share its migration's fate: the
/// engine tells them everything changed).
extension SQLiteBackend {
    /// Another process with the store open, by process ID (see the extension's notes).
    public func holderElsewhere() async throws -> String? {
        guard path != ":memory:" else { return nil }
        return StoreFiles.otherProcessHolding(lockOn: path + "-shm", byte: 128).map { "process \($0)" }
    }
}
