import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether the process behind a presence session is certainly gone, when it ran on this machine.
///
/// A handle's presence `application_name` ends in `<machine>:<pid>`: the machine a hash of the
/// host name and the PID namespace (two containers that share a host name but not their process
/// IDs are different machines here), the PID the operating system's. A session whose name says
/// this machine and whose process no longer exists is one the server has not finished ending (a
/// handle closed, or a process killed, a moment ago): it holds nothing. Any other session counts,
/// including one whose PID was reused by another process — the answer is only ever "gone" when it
/// is sure.
enum PostgresProcessLiveness {
    /// This machine's tag: 8 hex digits of a hash of the host name and the PID namespace.
    static let machineTag: String = {
        let host = ProcessInfo.processInfo.hostName
        let namespace = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/pid")) ?? ""
        return String(String(PostgresLayout.fnv(host + "|" + namespace), radix: 16).suffix(8))
    }()

    /// `<machine>:<pid>` for this process.
    static let processSuffix = "\(machineTag):\(ProcessInfo.processInfo.processIdentifier)"

    /// Whether `applicationName` (`strata:<store>:<tag>:<machine>:<pid>`) names a process of
    /// this machine that no longer exists.
    static func isGone(_ applicationName: String) -> Bool {
        let parts = applicationName.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[3] == Substring(machineTag), let pid = Int32(parts[4]), pid > 0 else {
            return false
        }
        #if canImport(Glibc)
            return kill(pid, 0) == -1 && errno == ESRCH
        #else
            return false
        #endif
    }
}
