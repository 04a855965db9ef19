import Foundation
import Strata
import StrataSQLite
import StrataSync
import StrataSyncHTTPClient
import StrataSyncHTTPServer
import StrataSyncServer

// A 100 MiB file through sync over loopback HTTP (release, `make bench-files`): a client process
// writes it into its SQLite store and uploads it before its record; a second client process pulls
// the record and downloads the file. Each client reports its peak memory above its baseline (the
// resident set once its store and engine are open; the peak is reset there). Then the same again
// with each client killed (SIGKILL) at a seeded random point of its transfer and started again:
// it must resume, and the bytes on the server and in the downloader's store must have the
// digest `sha256sum` gives for the source file.

struct Postcard: PersistentModel {
    var id: String
    var photo: FileReference
    static let entity = Entity<Postcard>("Postcard", [.attribute(\.photo, indexed: true)])
}

let schema = try Schema(Postcard.self)
let arguments = CommandLine.arguments

func memory(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
    }
    return 0
}

/// A line on standard output, unbuffered (the parent reads it as it comes).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// The client: `client upload|download URL STORE SOURCE`.
func runClient() async throws {
    let (role, url, path, source) = (arguments[2], arguments[3], arguments[4], arguments[5])
    // The page cache each SQLite connection may fill (the backend's default unless set).
    var sqlite = SQLiteBackend.Options()
    if let cache = ProcessInfo.processInfo.environment["STRATA_BENCH_CACHE_MIB"].flatMap(Int.init) {
        sqlite.cacheSizeMiB = cache
    }
    let store = Store(
        backend: try await SQLiteBackend.open(path: path, schema: schema, options: sqlite),
        sync: SyncConfiguration(clientID: role))
    var options = SyncEngine.Options()
    options.downloadsFiles = false
    let engine = try SyncEngine(
        store: store, remote: HTTPSyncRemote(baseURL: url, tokens: FixedToken("bench-token")), options: options)
    // STRATA_BENCH_WARM=1: the baseline is taken once the client has synced (a pull), as a running
    // client's is; by default it is taken before its first request.
    if ProcessInfo.processInfo.environment["STRATA_BENCH_WARM"] == "1" { try await engine.pull() }
    let baseline = memory("VmRSS")
    FileHandle.standardError.write(
        Data(
            ("\(role) baseline: RssAnon \(memory("RssAnon") / 1024) MiB, RssFile \(memory("RssFile") / 1024) MiB, "
                + "RssShmem \(memory("RssShmem") / 1024) MiB\n").utf8))
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let started = ContinuousClock.now
    if role == "upload" {
        if try await store.repository(Postcard.self).fetch("card") == nil {
            let photo = try await store.files.write(contentsOf: URL(fileURLWithPath: source))
            try await store.repository(Postcard.self).insert(Postcard(id: "card", photo: photo))
            FileHandle.standardError.write(
                Data("upload: written into the store, peak +\((memory("VmHWM") - baseline) / 1024) MiB\n".utf8))
        }
        say("transferring")
        try await engine.syncNow()
    } else {
        try await engine.pull()
        say("transferring")
        for card in try await store.repository(Postcard.self).fetch() { try await engine.download(card.photo) }
        if let card = try await store.repository(Postcard.self).fetch("card") {
            try await store.files.export(card.photo, to: URL(fileURLWithPath: source))
        }
    }
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    say("done \(memory("VmHWM") - baseline) \(seconds)")
    FileHandle.standardError.write(
        Data(
            ("\(role): RssAnon \(memory("RssAnon") / 1024) MiB, RssFile \(memory("RssFile") / 1024) MiB, "
                + "RssShmem \(memory("RssShmem") / 1024) MiB\n").utf8))
    try await store.close()
}

/// Runs a client to the end; with `killAfter`, kills it that long after it starts transferring
/// and runs it again. Returns the completing run's peak memory above baseline (KiB) and seconds.
func client(_ role: String, _ url: String, _ path: String, _ source: String, killAfter: Double?) throws -> (
    kib: Int, seconds: Double, killed: Bool
) {
    var killed = false
    while true {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = ["client", role, url, path, source]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var lines: [String] = []
        var buffer = Data()
        while true {
            let piece = output.fileHandleForReading.availableData
            if piece.isEmpty { break }
            buffer.append(piece)
            lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
            if let delay = killAfter, !killed, lines.contains("transferring") {
                Thread.sleep(forTimeInterval: delay)
                kill(process.processIdentifier, SIGKILL)
                killed = true
                break
            }
        }
        process.waitUntilExit()
        if let done = lines.first(where: { $0.hasPrefix("done ") }) {
            let parts = done.split(separator: " ")
            return (Int(parts[1]) ?? -1, Double(parts[2]) ?? -1, killed)
        }
        guard killed, process.terminationReason == .uncaughtSignal else {
            throw StrataError(.storageFailure, "the \(role) client failed: \(lines.joined(separator: " | "))")
        }
    }
}

func sha256sum(_ path: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return String(text.prefix(64))
}

func runBench() async throws {
    let megabytes = Int(ProcessInfo.processInfo.environment["STRATA_BENCH_FILE_MB"] ?? "") ?? 100
    let seed = UInt64(ProcessInfo.processInfo.environment["STRATA_BENCH_SEED"] ?? "") ?? UInt64.random(in: 1...99_999)
    print("seed \(seed) (STRATA_BENCH_SEED=\(seed) repeats the kill points)")
    var random = seed
    func next() -> Double {
        random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(random >> 11) / Double(1 << 53)
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-file-bench-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = directory.appendingPathComponent("source.bin").path
    FileManager.default.createFile(atPath: source, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
    var state = seed | 1
    for _ in 0..<megabytes {
        var block = [UInt8](repeating: 0, count: 1 << 20)
        for index in block.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            block[index] = UInt8(truncatingIfNeeded: state)
        }
        try handle.write(contentsOf: block)
    }
    try handle.close()
    let expected = try sha256sum(source)
    print("source: \(megabytes) MiB, sha256 \(expected)")

    for killing in [false, true] {
        let serverStore = Store(
            backend: try await SQLiteBackend.open(
                path: directory.appendingPathComponent("server-\(killing).sqlite").path, schema: schema))
        let endpoint = SyncEndpoint(
            server: SyncServer(store: serverStore),
            authenticator: StaticTokenAuthenticator(["bench-token": SyncIdentity("bench")]),
            limits: SyncLimits(rate: nil))
        let http = SyncHTTPServer(endpoint: endpoint)
        let url = "http://127.0.0.1:\(try await http.start(host: "127.0.0.1", port: 0))"
        let up = try client(
            "upload", url, directory.appendingPathComponent("up-\(killing).sqlite").path, source,
            killAfter: killing ? 0.2 + next() * 2 : nil)
        guard let card = try await serverStore.repository(Postcard.self).fetch("card") else {
            throw StrataError(.notFound, "the server has no record")
        }
        let held = directory.appendingPathComponent("server-copy.bin").path
        try await serverStore.files.export(card.photo, to: URL(fileURLWithPath: held))
        let serverDigest = try sha256sum(held)
        let downloaded = directory.appendingPathComponent("downloaded-\(killing).bin").path
        let down = try client(
            "download", url, directory.appendingPathComponent("down-\(killing).sqlite").path, downloaded,
            killAfter: killing ? 0.2 + next() * 2 : nil)
        let clientDigest = try sha256sum(downloaded)
        let mib = Double(megabytes)
        print(
            "\(killing ? "killed and resumed" : "uninterrupted"): upload \(String(format: "%.1f", up.seconds)) s "
                + "(\(String(format: "%.1f", mib / up.seconds)) MiB/s), peak +\(up.kib / 1024) MiB"
                + "\(up.killed ? ", killed once" : ""); download \(String(format: "%.1f", down.seconds)) s "
                + "(\(String(format: "%.1f", mib / down.seconds)) MiB/s), peak +\(down.kib / 1024) MiB"
                + "\(down.killed ? ", killed once" : ""); digests: "
                + "server \(serverDigest == expected ? "equal" : "DIFFER"), "
                + "client \(clientDigest == expected ? "equal" : "DIFFER")")
        await http.stop()
        try await serverStore.close()
        guard serverDigest == expected, clientDigest == expected else { exit(1) }
    }
    print("target: each client's peak under 16 MiB above its baseline")
}

if arguments.count > 1, arguments[1] == "client" {
    try await runClient()
} else {
    try await runBench()
}
