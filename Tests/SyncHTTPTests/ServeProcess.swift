import Foundation
import Strata
import StrataSync
import Synchronization

/// A `strata serve` process started by a test: spawned from the build directory with its output
/// in a log file, its port read from the file it writes once listening, stopped with SIGINT.
final class ServeProcess: Sendable {
    let pid: pid_t
    let port: Int
    let log: String
    /// The exit status once the process was stopped or killed (so a second stop sends nothing).
    private let ended = Mutex<Int32?>(nil)

    private init(pid: pid_t, port: Int, log: String) {
        self.pid = pid
        self.port = port
        self.log = log
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("strata").path
    }

    static func start(url: String, tokens: String, directory: String, extra: [String] = []) async throws -> ServeProcess
    {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw StrataError(
                .storageFailure, "strata is not built at \(executable): build with `swift build --build-tests`")
        }
        let name = UUID().uuidString.prefix(8)
        let portFile = "\(directory)/port-\(name)"
        let log = "\(directory)/serve-\(name).log"
        let arguments = [executable, "serve", url, "--port", "0", "--tokens", tokens, "--port-file", portFile] + extra
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, &argv, environ) == 0 else {
            throw StrataError(.storageFailure, "strata serve could not start")
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOfFile: portFile, encoding: .utf8), let port = Int(text) {
                return ServeProcess(pid: pid, port: port, log: log)
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                throw StrataError(.storageFailure, "strata serve exited (status \(status)) before listening: \(output)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        kill(pid, SIGKILL)
        throw StrataError(.storageFailure, "strata serve did not listen within 60 s")
    }

    /// Whether the process is still running (it has not exited or crashed).
    var isRunning: Bool {
        ended.withLock { known in
            guard known == nil else { return false }
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == pid else { return true }
            known = status
            return false
        }
    }

    /// Kills the server with SIGKILL (no shutdown of any kind) and waits for it to end.
    func killHard() { end(SIGKILL) }

    /// Stops the server with SIGINT; returns its exit status.
    @discardableResult
    func stop() -> Int32 { end(SIGINT) }

    @discardableResult
    private func end(_ signal: Int32) -> Int32 {
        ended.withLock { known in
            if let known { return known }
            kill(pid, signal)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
            known = status
            return status
        }
    }
}

/// Calls two remotes in turn: a client whose requests land on either of two servers.
actor AlternatingRemote: SyncRemote {
    let remotes: [any SyncRemote]
    private var next = 0

    init(_ remotes: [any SyncRemote]) { self.remotes = remotes }

    private func pick() -> any SyncRemote {
        defer { next = (next + 1) % remotes.count }
        return remotes[next]
    }

    func push(_ request: PushRequest) async throws -> PushResponse { try await pick().push(request) }
    func pull(_ request: PullRequest) async throws -> PullResponse { try await pick().pull(request) }
    func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse { try await pick().snapshot(request) }
}
