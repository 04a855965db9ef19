import BenchmarkWorkloads
import Foundation
import GRDB
import Strata
import StrataInMemory
import StrataLMDB
import StrataPostgres
import StrataSQLite

// Full-text search (`make bench-search`). The corpus: STRATA_SEARCH_DOCS documents (1,000,000 by
// default) of a 4-word title and a 16-word body drawn from a 20,000-word vocabulary with Zipf's
// law (seeded, so every run and every backend sees the same text).
//
// 1. Indexing cost: inserting STRATA_SEARCH_INSERT documents (100,000) in one save with the
//    full-text index beside the same insert without it, per backend (median of STRATA_BENCH_RUNS).
// 2. A two-term query returning the top 20 by relevance, over the whole corpus: Strata on each
//    backend beside the same query through GRDB on an FTS5 table of the same documents
//    (`bm25` with the same weights), median of 25 runs after one warm-up. Two pairs of terms:
//    mid-frequency words (ranks 100 and 300, about 2% and 0.6% of documents) — the headline — and
//    common ones (ranks 5 and 10) as a stress figure.
// STRATA_SEARCH_BACKENDS picks among sqlite,lmdb,postgres,memory (PostgreSQL needs
// STRATA_POSTGRES_URL; `make bench-search` starts a throwaway server).

let environment = ProcessInfo.processInfo.environment
let documents = Int(environment["STRATA_SEARCH_DOCS"] ?? "") ?? 1_000_000
let insertCount = Int(environment["STRATA_SEARCH_INSERT"] ?? "") ?? 100_000
let runs = Int(environment["STRATA_BENCH_RUNS"] ?? "") ?? 3
let backends = (environment["STRATA_SEARCH_BACKENDS"] ?? "sqlite,lmdb,postgres").split(separator: ",").map(String.init)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-search-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

struct SearchDoc: PersistentModel {
    var id: UUID
    var title: String
    var body: String

    static let entity = Entity<SearchDoc>(
        "SearchDoc",
        [
            .attribute(\.title), .attribute(\.body),
            .search("text", weighted: [(\SearchDoc.title, 2), (\SearchDoc.body, 1)]),
        ])
}

struct PlainDoc: PersistentModel {
    var id: UUID
    var title: String
    var body: String

    static let entity = Entity<PlainDoc>("SearchDoc", [.attribute(\.title), .attribute(\.body)])
}

/// Pseudo-words of two to four syllables, distinct, ranked by the order they were made.
func vocabulary(_ count: Int, _ random: inout SplitMix) -> [String] {
    let syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "vu", "xa", "bo", "fi", "gu", "ze", "ha"]
    var seen: Set<String> = []
    var words: [String] = []
    while words.count < count {
        let word = (0..<random.int(2...4)).map { _ in syllables[random.int(0...(syllables.count - 1))] }.joined()
        if seen.insert(word).inserted { words.append(word) }
    }
    return words
}

extension SplitMix {
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// Zipf's law over `count` ranks: the cumulative weights to sample by.
func zipf(_ count: Int) -> [Double] {
    var total = 0.0
    var cumulative: [Double] = []
    for rank in 1...count {
        total += 1 / Double(rank)
        cumulative.append(total)
    }
    return cumulative.map { $0 / total }
}

var random = SplitMix(seed: 20_261_127)
let words = vocabulary(20_000, &random)
let weights = zipf(words.count)
func sample(_ random: inout SplitMix) -> String {
    let u = random.unit()
    var low = 0
    var high = weights.count - 1
    while low < high {
        let middle = (low + high) / 2
        if weights[middle] < u { low = middle + 1 } else { high = middle }
    }
    return words[low]
}
func text(_ count: Int, _ random: inout SplitMix) -> String {
    (0..<count).map { _ in sample(&random) }.joined(separator: " ")
}
print("Generating \(documents) documents …")
var corpus: [SearchDoc] = []
corpus.reserveCapacity(documents)
for index in 0..<documents {
    var id = UUID().uuid
    withUnsafeMutableBytes(of: &id) { bytes in
        bytes.storeBytes(of: UInt64(index).bigEndian, toByteOffset: 8, as: UInt64.self)
        bytes.storeBytes(of: random.next(), toByteOffset: 0, as: UInt64.self)
    }
    corpus.append(SearchDoc(id: UUID(uuid: id), title: text(4, &random), body: text(16, &random)))
}
let queries = [("mid-frequency", "\(words[99]) \(words[299])"), ("common", "\(words[4]) \(words[9])")]

func url(_ kind: String, _ base: String) -> String? {
    let name = "\(base)_\(UInt32.random(in: 0...UInt32.max))"
    switch kind {
    case "sqlite": return "sqlite:\(directory.path)/\(name).sqlite"
    case "lmdb": return "lmdb:\(directory.path)/\(name).lmdb"
    case "memory": return "memory:\(name)"
    case "postgres":
        guard let base = environment["STRATA_POSTGRES_URL"] else { return nil }
        let schema = "search_\(name)"
        return base + (base.contains("?") ? "&" : "?") + "schema=\(schema)"
    default: return nil
    }
}

func register() {
    InMemoryBackend.register()
    SQLiteBackend.register()
    LMDBBackend.register()
    PostgresBackend.register()
}
register()

// MARK: 1. Indexing cost

print("\nIndexing cost: insert \(insertCount) documents in one save — median of \(runs) runs, ms (release build)")
print("backend     with index  without     ratio  (target ≤ 2×)")
let batch = Array(corpus.prefix(insertCount))
let plainBatch = batch.map { PlainDoc(id: $0.id, title: $0.title, body: $0.body) }
for kind in backends where insertCount > 0 {
    guard url(kind, "probe") != nil else {
        print("\(kind): skipped (no STRATA_POSTGRES_URL)")
        continue
    }
    let (with, _) = try await medianMilliseconds(runs: runs) {
        let store = try await Store.open(url(kind, "with")!, schema: try Schema(SearchDoc.self))
        return {
            try await store.repository(SearchDoc.self).insert(contentsOf: batch)
            try await store.close()
            return batch.count
        }
    }
    let (without, _) = try await medianMilliseconds(runs: runs) {
        let store = try await Store.open(url(kind, "without")!, schema: try Schema(PlainDoc.self))
        return {
            try await store.repository(PlainDoc.self).insert(contentsOf: plainBatch)
            try await store.close()
            return plainBatch.count
        }
    }
    print(
        kind.padding(toLength: 12, withPad: " ", startingAt: 0)
            + String(format: "%-11.1f %-11.1f %.2f×", with, without, with / without))
}

// MARK: 2. Top 20 of a two-term query over the corpus

func timeQuery(_ body: () async throws -> [String]) async throws -> (Double, [String]) {
    _ = try await body()
    var times: [Double] = []
    var last: [String] = []
    let clock = ContinuousClock()
    for _ in 0..<25 {
        let start = clock.now
        last = try await body()
        times.append(seconds(clock.now - start) * 1_000)
    }
    return (times.sorted()[times.count / 2], last)
}

print("\nRaw FTS5 (GRDB): filling \(documents) documents …")
let fts = try DatabaseQueue(path: directory.appendingPathComponent("fts.sqlite").path)
try fts.write { db in
    try db.execute(
        sql: "CREATE VIRTUAL TABLE doc USING fts5(id UNINDEXED, title, body, tokenize='unicode61 remove_diacritics 2')")
    let statement = try db.makeStatement(sql: "INSERT INTO doc (id, title, body) VALUES (?, ?, ?)")
    for doc in corpus { try statement.execute(arguments: [doc.id.uuidString, doc.title, doc.body]) }
}
var rawFigures: [String: Double] = [:]
for (name, query) in queries {
    let (time, ids) = try await timeQuery {
        try await fts.read { db in
            try String.fetchAll(
                db, sql: "SELECT id FROM doc WHERE doc MATCH ? ORDER BY bm25(doc, 0, 2.0, 1.0), id LIMIT 20",
                arguments: [query])
        }
    }
    rawFigures[name] = time
    print("raw FTS5, \(name) (\(query)): \(String(format: "%.2f", time)) ms, \(ids.count) results")
}

print(
    "\nTop 20 by relevance over \(documents) documents — median of 25 runs, ms "
        + "(target ≤ 20 ms; SQLite ≤ 1.5× raw FTS5)"
)
for kind in backends {
    guard let location = url(kind, "corpus") else { continue }
    let store = try await Store.open(location, schema: try Schema(SearchDoc.self))
    let clock = ContinuousClock()
    let start = clock.now
    var offset = 0
    while offset < corpus.count {
        let end = min(corpus.count, offset + 100_000)
        try await store.repository(SearchDoc.self).insert(contentsOf: Array(corpus[offset..<end]))
        offset = end
    }
    print("\(kind): filled in \(String(format: "%.1f", seconds(clock.now - start))) s")
    for (name, query) in queries {
        let search = Query<SearchDoc>.where(.search(query, in: "text")).sorted(byRelevanceOf: "text").limit(20)
        let (time, ids) = try await timeQuery {
            try await store.repository(SearchDoc.self).fetch(search).map(\.id.uuidString)
        }
        let peer = rawFigures[name] ?? .nan
        print(
            "\(kind), \(name): \(String(format: "%.2f", time)) ms, \(ids.count) results"
                + (kind == "sqlite" ? String(format: " — %.2f× raw FTS5", time / peer) : ""))
    }
    try await store.close()
}
