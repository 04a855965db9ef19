import Foundation
import Strata

/// Runs the built `strata` with its output and errors in files.
enum Tool {
    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("strata").path
    }

    /// Runs `strata` on a thread of its own and waits for it without blocking a cooperative thread
    /// (a test that blocks them starves everything else in the process: a store's close, a server).
    static func run(_ arguments: [String], in directory: String, executable: String = Tool.executable) async throws
        -> (status: Int32, output: String, errors: String)
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Result { try blocking(arguments, in: directory, executable: executable) })
            }
            .start()
        }
    }

    private static func blocking(_ arguments: [String], in directory: String, executable: String) throws -> (
        status: Int32, output: String, errors: String
    ) {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw StrataError(
                .storageFailure, "strata is not built at \(executable): build with `swift build --build-tests`")
        }
        let name = UUID().uuidString.prefix(8)
        let (out, err) = ("\(directory)/out-\(name)", "\(directory)/err-\(name)")
        let all = [executable] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = all.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, &argv, environ) == 0 else {
            throw StrataError(.storageFailure, "strata could not start")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let output = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        return ((status >> 8) & 0xff, output, errors)
    }
}
