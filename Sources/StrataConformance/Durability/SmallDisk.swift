import Foundation
import Strata

#if canImport(Glibc)
    import Glibc
#endif

/// A file system of a few MiB of its own, for disk-full trials: a `tmpfs` mounted on a fresh
/// directory, which can be grown in place (the "space freed" half of a trial) and is unmounted
/// when the trial ends. Mounting needs root (or `CAP_SYS_ADMIN`); where this process cannot,
/// ``unavailableReason`` says why and the trials that need it are skipped with that reason.
public final class SmallDisk: Sendable {
    /// Where the file system is mounted.
    public let directory: String

    /// Mounts a `tmpfs` of `bytes` on a new directory under the temporary directory.
    public init(bytes: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-small-disk-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard Self.mount(directory, bytes: bytes, remount: false) else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: directory)
            throw StrataError(.storageFailure, "a tmpfs of \(bytes) bytes cannot be mounted on \(directory): \(reason)")
        }
        self.directory = directory
    }

    /// Makes the file system `bytes` large, keeping what it holds (space freed, in a trial).
    public func grow(to bytes: Int) throws {
        guard Self.mount(directory, bytes: bytes, remount: true) else {
            throw StrataError(.storageFailure, "\(directory) cannot be grown: \(String(cString: strerror(errno)))")
        }
    }

    /// Unmounts it (lazily, should a file still be open) and removes the directory.
    public func unmount() {
        #if canImport(Glibc)
            _ = umount2(directory, Int32(MNT_DETACH))
        #endif
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Why no small disk can be mounted here, or `nil` when one can (probed once).
    public static let unavailableReason: String? = {
        do {
            let probe = try SmallDisk(bytes: 1 << 20)
            probe.unmount()
            return nil
        } catch let error as StrataError {
            return "disk-full trials need a tmpfs of their own, and this process cannot mount one "
                + "(run as root, or with CAP_SYS_ADMIN): \(error.message)"
        } catch {
            return "disk-full trials need a tmpfs of their own: \(error)"
        }
    }()

    private static func mount(_ directory: String, bytes: Int, remount: Bool) -> Bool {
        #if canImport(Glibc)
            let flags: UInt = remount ? UInt(MS_REMOUNT) : 0
            return Glibc.mount("tmpfs", directory, "tmpfs", flags, "size=\(bytes),mode=0755") == 0
        #else
            errno = ENOTSUP
            return false
        #endif
    }
}
