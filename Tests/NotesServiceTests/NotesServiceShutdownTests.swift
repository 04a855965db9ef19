import Foundation
import StrataConformance
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `notes-service` shuts down cleanly with a live stream open: SIGTERM ends the stream
/// (the client reads the end of it), the server stops, the store closes, and the process exits 0 —
/// where it used to hang until killed.
@Suite struct NotesServiceShutdownTests {
    static var executable: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("notes-service").path
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                guard bind(fd, $0, length) == 0, getsockname(fd, $0, &length) == 0 else {
                    throw POSIXError(.EADDRINUSE)
                }
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A connection to 127.0.0.1:`port` (retried while the server starts), reads bounded by `timeout`.
    static func connect(to port: Int, timeout seconds: Int) throws -> Int32 {
        try Loopback.connect(port: port, timeout: seconds, attempts: 300)
    }

    /// Runs blocking work (a socket's reads, a wait for a process) on a thread of its own: blocking
    /// one of the two cooperative threads of a loaded test process starves everything else in it.
    static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try work() }) }.start()
        }
    }

    /// Reads until `marker` appears (returns true) or the stream ends or times out (false).
    static func read(_ fd: Int32, until marker: String?, into text: inout String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let marker, text.contains(marker) { return true }
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count <= 0 { return count == 0 && marker == nil }
            text += String(decoding: buffer[..<count], as: UTF8.self)
        }
    }

    @Test func sigtermWithALiveStreamOpenEndsTheStreamAndExitsCleanly() async throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            Issue.record("notes-service is not built at \(Self.executable): build with `swift build --build-tests`")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("notes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = try Self.freePort()
        let service = Process()
        service.executableURL = URL(fileURLWithPath: Self.executable)
        service.environment = ProcessInfo.processInfo.environment.merging(
            ["NOTES_STORE": "sqlite:\(directory.path)/notes.sqlite", "PORT": "\(port)"], uniquingKeysWith: { $1 })
        service.standardOutput = FileHandle.nullDevice
        try service.run()
        defer { if service.isRunning { service.interrupt(); kill(service.processIdentifier, SIGKILL) } }

        let pid = service.processIdentifier
        // The socket's blocking reads on a thread of their own, not a cooperative one.
        let (first, ended, received) = try await Self.onOwnThread { () throws -> (Bool, Bool, String) in
            let stream = try Self.connect(to: port, timeout: 60)
            defer { close(stream) }
            let request = "GET /notes/live HTTP/1.1\r\nHost: localhost\r\nX-User: ana\r\n\r\n"
            _ = request.withCString { write(stream, $0, strlen($0)) }
            var received = ""
            let first = Self.read(stream, until: "data: []", into: &received)
            kill(pid, SIGTERM)
            // The stream ends (end of file, not the 60-second read timeout), then the process exits.
            return (first, Self.read(stream, until: nil, into: &received), received)
        }
        #expect(first, "the stream's first event: \(received)")
        #expect(ended, "the live stream did not end on SIGTERM: \(received)")
        let exited = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                for _ in 0..<600 where service.isRunning { usleep(100_000) }
                continuation.resume(returning: !service.isRunning)
            }
        }
        #expect(exited, "notes-service still running a minute after SIGTERM")
        if exited { #expect(service.terminationStatus == 0 && service.terminationReason == .exit) }
    }
}
