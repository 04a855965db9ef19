import Foundation
import Synchronization

/// A child process started with `posix_spawn`, for the suite's harnesses and tests. Foundation's
/// `Process.run()` once crashed a test process (a bad pointer inside its own copying) while other
/// threads started children and forked LMDB's walker; `posix_spawn` with plain C arrays has no
/// shared state to race on.
public final class SpawnedProcess: Sendable {
    /// The child's process ID.
    public let processIdentifier: pid_t
    private let exitStatus = Mutex<Int32?>(nil)
    private let signalled = Atomic<Bool>(false)

    /// Starts `executable` with `arguments`; `environment` replaces the inherited one when given,
    /// and standard output and standard error go to the files named (or to `/dev/null`).
    public init(
        executable: String, arguments: [String], environment: [String: String]? = nil,
        standardOutput: String = "/dev/null", standardError: String = "/dev/null"
    ) throws {
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp ?? [] { free(pointer) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var pid: pid_t = 0
        let result: Int32
        if var variables = envp {
            result = posix_spawn(&pid, executable, &actions, nil, &argv, &variables)
        } else {
            result = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
        }
        guard result == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: executable])
        }
        processIdentifier = pid
    }

    /// Whether the child is still running (reaps it once it has ended).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// The child's exit status (its signal number plus 128 when a signal ended it); waits for it.
    public var terminationStatus: Int32 { waitUntilExit() }

    /// Whether a signal ended the child (a crash, or a kill); waits for it.
    public var endedBySignal: Bool {
        waitUntilExit()
        return signalled.load(ordering: .acquiring)
    }

    /// Waits, blocking the calling thread, until the child has ended; its exit status.
    @discardableResult
    public func waitUntilExit() -> Int32 {
        while true {
            if let status = reap(blocking: true) { return status }
        }
    }

    /// Waits, without blocking a thread, until the child has ended; its exit status.
    public func exit() async -> Int32 {
        while true {
            if let status = reap(blocking: false) { return status }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Sends `signal` to the child.
    public func send(_ signal: Int32) { _ = kill(processIdentifier, signal) }

    private func reap(blocking: Bool) -> Int32? {
        exitStatus.withLock { known in
            if let known { return known }
            var status: Int32 = 0
            let reaped = waitpid(processIdentifier, &status, blocking ? 0 : WNOHANG)
            guard reaped == processIdentifier else {
                // Interrupted, or still running; a child someone else reaped counts as ended.
                if reaped == -1, errno == ECHILD { known = -1 }
                return known
            }
            let signal = status & 0x7f
            signalled.store(signal != 0, ordering: .releasing)
            known = signal == 0 ? (status >> 8) & 0xff : 128 + signal
            return known
        }
    }
}
