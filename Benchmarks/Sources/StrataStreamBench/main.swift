import BenchmarkWorkloads
import Foundation
import Strata
import StrataLMDB
import StrataPostgres
import StrataSQLite
import StrataTools

// A streamed read of N records (1M by default, STRATA_STREAM_RECORDS; BenchItem, 10 attributes)
// beside fetching the same records as one array, on SQLite, LMDB and — with STRATA_POSTGRES_URL —
// PostgreSQL. Each read runs in a process of its own, which resets its peak RSS just before the
// read (/proc/self/clear_refs) and reports the peak's growth over its RSS then; each side runs
// twice and the faster run counts. Targets: streamed growth ≤ 32 MiB, time ≤ 1.2× the array.
// `make bench-stream`.

func open(_ url: String) async throws -> Store {
    // "sqlite-cache8:PATH": the same file with an 8 MiB page cache per connection instead of 64.
    if url.hasPrefix("sqlite-cache8:") {
        let path = String(url.dropFirst("sqlite-cache8:".count))
        let options = SQLiteBackend.Options(cacheSizeMiB: 8)
        return Store(
            backend: try await SQLiteBackend.open(path: path, schema: try BenchSchema.make(), options: options))
    }
    SQLiteBackend.register()
    LMDBBackend.register()
    PostgresBackend.register()
    return try await Store.open(url, schema: try BenchSchema.make())
}

let arguments = CommandLine.arguments

if arguments.count == 4, arguments[1] == "--make" {
    let count = Int(arguments[3]) ?? 0
    let store = try await open(arguments[2])
    for start in stride(from: 0, to: count, by: 10_000) {
        try await store.repository(BenchItem.self).insert(
            contentsOf: (start..<min(count, start + 10_000)).map(BenchItem.make))
    }
    try await store.close()
    exit(0)
}

if arguments.count == 3, arguments[1] == "--count" {
    let store = try await open(arguments[2])
    print(try await store.repository(BenchItem.self).count())
    try await store.close()
    exit(0)
}

if arguments.count == 4, arguments[1] == "--copy" {
    let source = try await open(arguments[2])
    let target = try await open(arguments[3])
    let outcome = try await StoreCopier(from: source, to: target, batch: 5_000).run()
    try await source.close()
    try await target.close()
    exit(outcome.isEqual ? 0 : 1)
}

/// The peak of RssAnon (heap and stacks: not the file pages LMDB maps or SQLite reads, which the
/// kernel reclaims) while it runs, sampled every millisecond on a thread of its own.
final class AnonymousPeak: @unchecked Sendable {  // `peak` and `running` guarded by `lock`
    private let lock = NSLock()
    private var peak = 0.0
    private var running = true

    init() {
        Thread.detachNewThread { [self] in
            while lock.withLock({ running }) {
                let now = memoryMiB("RssAnon")
                lock.withLock { peak = max(peak, now) }
                usleep(1_000)
            }
        }
    }

    func stop() -> Double {
        lock.withLock {
            running = false
            return peak
        }
    }
}

if arguments.count == 4, arguments[1] == "--read" {
    let store = try await open(arguments[2])
    let items = store.repository(BenchItem.self)
    let before = memoryMiB("VmRSS")
    let anonymousBefore = memoryMiB("RssAnon")
    let sampler = AnonymousPeak()
    try "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let begin = ContinuousClock.now
    var count = 0
    var checksum = 0
    if arguments[3] == "stream" {
        let batch = Int(ProcessInfo.processInfo.environment["STRATA_STREAM_BATCH"] ?? "") ?? 0
        let stream = batch > 0 ? items.stream(Query<BenchItem>.all, batchSize: batch) : items.stream()
        for try await item in stream {
            count += 1
            checksum &+= item.quantity
        }
    } else if arguments[3] == "pages" {
        var cursor: PageCursor?
        repeat {
            let page = try await items.fetch(Query<BenchItem>.all.limit(1_000), after: cursor)
            count += page.models.count
            for item in page.models { checksum &+= item.quantity }
            cursor = page.next
        } while cursor != nil
    } else {
        let all = try await items.fetch()
        count = all.count
        for item in all { checksum &+= item.quantity }
    }
    let elapsed = seconds(ContinuousClock.now - begin)
    let anonymous = sampler.stop() - anonymousBefore
    print("\(elapsed) \(memoryMiB("VmHWM") - before) \(count) \(checksum) \(anonymous)")
    try await store.close()
    exit(0)
}

if arguments.count == 3, arguments[1] == "--pages" {
    // Keyset pages through fetch(_:after:), each its own read: the stream's batches without a snapshot.
    let store = try await open(arguments[2])
    let items = store.repository(BenchItem.self)
    let begin = ContinuousClock.now
    var cursor: PageCursor?
    var count = 0
    repeat {
        let page = try await items.fetch(Query<BenchItem>.all.limit(1_000), after: cursor)
        count += page.models.count
        cursor = page.next
    } while cursor != nil
    print("\(seconds(ContinuousClock.now - begin)) \(count)")
    exit(0)
}

if arguments.count == 3, arguments[1] == "--sections" {
    // 100,000 records fetched as one array, then the same fetch sectioned into 100 sections
    // (`category` is n % 100), best of 3 each, in this process.
    let store = try await open(arguments[2])
    let items = store.repository(BenchItem.self)
    let query = Query<BenchItem>.all.limit(100_000)
    var plain = Double.infinity
    var sectioned = Double.infinity
    var sections = 0
    for _ in 0..<3 {
        var begin = ContinuousClock.now
        let models = try await items.fetch(query)
        plain = min(plain, seconds(ContinuousClock.now - begin))
        begin = ContinuousClock.now
        let result = try await items.fetch(query, sectionedBy: .attribute(\.category))
        sectioned = min(sectioned, seconds(ContinuousClock.now - begin))
        sections = result.sections.count
        guard result.models.count == models.count else { exit(1) }
    }
    print("\(plain) \(sectioned) \(sections)")
    exit(0)
}

if arguments.count == 3, arguments[1] == "--observe-sections" {
    // 100,000 records in a new SQLite store beside `arguments[2]`'s directory; see ObservedSections.
    let url = "sqlite:\(arguments[2])"
    try? FileManager.default.removeItem(atPath: arguments[2])
    _ = try child(["--make", url, "100000"])
    let store = try await open(url)
    let (update, save, fetch) = try await observeSections(store, saves: 40)
    try await store.close()
    print("\(update) \(save) \(fetch)")
    exit(0)
}

/// The faster of two reads: seconds, peak RSS growth and peak heap growth in MiB (the larger of
/// the two runs'), records.
func measure(_ url: String, _ mode: String) throws -> (seconds: Double, growth: Double, heap: Double, count: Int) {
    let runs = try (0..<2).map { _ in try child(["--read", url, mode]).split(separator: " ") }
    let best = runs.min { (Double($0[0]) ?? 0) < (Double($1[0]) ?? 0) } ?? []
    let growth = runs.map { Double($0[1]) ?? 0 }.max() ?? 0
    let heap = runs.map { Double($0[4]) ?? 0 }.max() ?? 0
    return (Double(best[0]) ?? 0, growth, heap, Int(best[2]) ?? 0)
}

let count = Int(ProcessInfo.processInfo.environment["STRATA_STREAM_RECORDS"] ?? "") ?? 1_000_000
// STRATA_STREAM_DIR keeps the stores between runs (made when the directory is new).
let kept = ProcessInfo.processInfo.environment["STRATA_STREAM_DIR"]
let directory =
    kept
    ?? FileManager.default.temporaryDirectory.appendingPathComponent(
        "strata-stream-bench-\(ProcessInfo.processInfo.processIdentifier)"
    ).path
let fresh = !FileManager.default.fileExists(atPath: directory)
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { if kept == nil { try? FileManager.default.removeItem(atPath: directory) } }
var stores = [("SQLite", "sqlite:\(directory)/items.sqlite"), ("LMDB", "lmdb:\(directory)/items.lmdb")]
if let postgres = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] {
    stores.append(("PostgreSQL", postgres))
}
let made = ContinuousClock.now
if fresh { _ = try child(["--make", stores[0].1, String(count)]) }
for (_, url) in stores.dropFirst() where fresh || (try? child(["--count", url])) != String(count) {
    _ = try child(["--copy", stores[0].1, url])
}
// SQLite's page cache (64 MiB a connection by default) fills as any read touches the table: the
// array read fills the pool's; a stream reads through its snapshot's connection, whose cache is
// 8 MiB. The same file opened with an 8 MiB cache everywhere shows the array read without it.
stores.insert(("SQLite 8 MiB", "sqlite-cache8:\(directory)/items.sqlite"), at: 1)
print(
    "\(count) BenchItem records (10 attributes) in \(stores.map(\.0).joined(separator: ", ")), made in "
        + String(format: "%.0f s", seconds(ContinuousClock.now - made)))
let batch =
    ProcessInfo.processInfo.environment["STRATA_STREAM_BATCH"]
    ?? "the default, \(ModelStream<BenchItem>.defaultBatchSize)"
print("stream() (batch \(batch)) beside fetch() as one array; best of 2")
print("peak +MiB: the process's peak RSS over its RSS before the read, and (heap) its peak RssAnon over RssAnon before")
print("backend        array s   stream s   ratio   array peak +MiB (heap)   stream peak +MiB (heap)")
for (name, url) in stores {
    let array = try measure(url, "array")
    let stream = try measure(url, "stream")
    guard array.count == count, stream.count == count else {
        throw StrataError(.storageFailure, "\(name): read \(array.count) and \(stream.count) of \(count)")
    }
    print(
        String(
            format: "%@ %8.2f   %8.2f   %5.2f×   %14.1f (%6.1f)   %15.1f (%6.1f)",
            name.padding(toLength: 13, withPad: " ", startingAt: 0) as NSString,
            array.seconds, stream.seconds, stream.seconds / array.seconds, array.growth, array.heap, stream.growth,
            stream.heap))
}
let sectionRun = try child(["--sections", stores[0].1]).split(separator: " ")
let (plainSeconds, sectionedSeconds) = (Double(sectionRun[0]) ?? 0, Double(sectionRun[1]) ?? 0)
print(
    String(
        format: "sectioned fetch, SQLite, 100,000 records into %@ sections: %.3f s beside %.3f s unsectioned (%.2f×)",
        String(sectionRun[2]) as NSString, sectionedSeconds, plainSeconds, sectionedSeconds / plainSeconds))
let observed = try child(["--observe-sections", "\(directory)/observed.sqlite"]).split(separator: " ").map {
    Double($0) ?? 0
}
print(
    String(
        format: "observed sections, SQLite, 100,000 records in 100 sections: an update after a one-record save %.4f s"
            + " (the save alone %.4f s) beside a sectioned fetch %.3f s (%.3f×); median of 40 saves",
        observed[0], observed[1], observed[2], observed[0] / observed[2]))
