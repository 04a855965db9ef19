import Foundation

/// Telling a full disk from a failing one. A write that runs out of room fails in several ways —
/// `ENOSPC` or `EDQUOT` from the system, Foundation's "out of space" error, or a short write that
/// a library reports as `EIO` (LMDB) — and the caller should hear ``StrataError/Code/diskFull``
/// for each, since freeing space is what helps, not a new disk.
extension StoreFiles {
    /// Free room, in bytes, below which a failed write is taken for a full disk.
    public static let nearlyFullBytes: Int64 = 1 << 20

    /// Whether `code` is the system's "no space" or "quota exceeded".
    public static func isFull(errno code: Int32) -> Bool { code == ENOSPC || code == EDQUOT }

    /// Whether `error` (a POSIX or Foundation error, or one wrapping either) says the disk or the
    /// quota is full.
    public static func isFull(_ error: any Error) -> Bool {
        if let strata = error as? StrataError {
            return strata.code == .diskFull || strata.underlying.map { isFull($0) } ?? false
        }
        if let posix = error as? POSIXError { return isFull(errno: posix.code.rawValue) }
        let bridged = error as NSError
        if bridged.domain == NSPOSIXErrorDomain { return isFull(errno: Int32(bridged.code)) }
        if bridged.domain == NSCocoaErrorDomain, bridged.code == CocoaError.fileWriteOutOfSpace.rawValue {
            return true
        }
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError { return isFull(underlying) }
        return false
    }

    /// The bytes an unprivileged writer may still use on the file system holding `path` (a file
    /// or a directory; the nearest existing ancestor is asked), or `nil` when it cannot be told.
    public static func availableBytes(at path: String) -> Int64? {
        var candidate = path.isEmpty ? "." : path
        var status = statvfs()
        while statvfs(candidate, &status) != 0 {
            let parent = (candidate as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != candidate else { return nil }
            candidate = parent
        }
        return Int64(status.f_bavail) * Int64(status.f_frsize)
    }

    /// Whether the file system holding `path` has less than ``nearlyFullBytes`` left.
    public static func isNearlyFull(at path: String) -> Bool {
        availableBytes(at: path).map { $0 < nearlyFullBytes } ?? false
    }

    /// The typed error for a failed write of `path`: ``StrataError/Code/diskFull`` when `error`
    /// says so or the disk is (nearly) full, `storageFailure` otherwise; `message` says what
    /// could not be written.
    public static func writeFailure(_ error: any Error, at path: String, _ message: String) -> StrataError {
        if isFull(error) || isNearlyFull(at: path) {
            return StrataError(
                .diskFull, underlying: error,
                "\(message): the disk is full (free space and retry; nothing of this write was kept)")
        }
        return StrataError(.storageFailure, underlying: error, message)
    }
}
