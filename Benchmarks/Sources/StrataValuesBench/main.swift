import BenchmarkWorkloads
import Foundation
import Strata
import StrataInMemory
import StrataLMDB
import StrataSQLite

// One save (one transaction) of N records (100k by default, STRATA_VALUES_RECORDS) whose values
// are an exact decimal and a five-element array of text, beside the same save with a double and a
// text — the values a service stored before collections and decimals — on memory, SQLite and LMDB.
// Each side runs three times on a fresh store and the fastest run counts. Target: ≤ 1.3×.
// `make bench-values`.

struct Scalars: PersistentModel {
    var id: Int64
    var amount: Double
    var note: String
    static let entity = Entity<Scalars>("Scalars", [.attribute(\.amount), .attribute(\.note)])
}

struct Values: PersistentModel {
    var id: Int64
    var amount: Decimal
    var tags: [String]
    static let entity = Entity<Values>("Values", [.attribute(\.amount), .attribute(\.tags)])
}

struct IndexedValues: PersistentModel {
    var id: Int64
    var amount: Decimal
    var tags: [String]
    static let entity = Entity<IndexedValues>(
        "IndexedValues", [.attribute(\.amount), .attribute(\.tags, indexed: true)])
}

let count = Int(ProcessInfo.processInfo.environment["STRATA_VALUES_RECORDS"] ?? "") ?? 100_000
let schema = try Schema(models: [Scalars.self, Values.self, IndexedValues.self])
let words = ["swift", "linux", "server", "store", "sync", "query", "index", "money"]

func open(_ backend: String, _ directory: URL) async throws -> Store {
    switch backend {
    case "memory": return Store(backend: InMemoryBackend(schema: schema))
    case "sqlite":
        return Store(
            backend: try await SQLiteBackend.open(
                path: directory.appendingPathComponent("v.sqlite").path, schema: schema))
    default:
        return Store(
            backend: try await LMDBBackend.open(path: directory.appendingPathComponent("v.lmdb").path, schema: schema))
    }
}

/// The fastest of three saves of `count` models made by `make`, each into a fresh store.
func fastest<M: PersistentModel>(_ backend: String, _ make: (Int) -> M) async throws -> Double {
    var best = Double.infinity
    for _ in 0..<3 {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-values-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await open(backend, directory)
        let models = (0..<count).map(make)
        let clock = ContinuousClock()
        let start = clock.now
        try await store.repository(M.self).insert(contentsOf: models)
        best = min(best, seconds(clock.now - start))
        try await store.close()
    }
    return best
}

func tags(_ i: Int) -> [String] { (0..<5).map { words[(i + $0 * 3) % words.count] + String(i % 97) } }

print("A save of \(count) records: a decimal and a 5-element array vs a double and a text (fastest of 3)")
for backend in ["memory", "sqlite", "lmdb"] {
    let plain = try await fastest(backend) {
        Scalars(id: Int64($0), amount: Double($0) / 100, note: "note \($0 % 1000)")
    }
    let rich = try await fastest(backend) {
        Values(id: Int64($0), amount: Decimal($0) / 100, tags: tags($0))
    }
    var line = String(
        format: "%-7@ double+text %.3f s   decimal+array %.3f s   ratio %.2f× (target ≤ 1.3×)", backend as NSString,
        plain, rich, rich / plain)
    if backend == "sqlite" {
        let indexed = try await fastest(backend) {
            IndexedValues(id: Int64($0), amount: Decimal($0) / 100, tags: tags($0))
        }
        line += String(format: "   array indexed %.3f s (%.2f×)", indexed, indexed / plain)
    }
    print(line)
}
