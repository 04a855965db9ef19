import BenchmarkWorkloads
import Foundation
import Logging
import PostgresNIO
import Strata
import StrataPostgres

// PostgreSQL: Strata's backend beside raw postgres-nio running the same statements (the same
// tables, the same `unnest` batch insert, the same SELECTs) in this one process, median of
// STRATA_BENCH_RUNS runs; then round trips per one-record save, and saves per second from 1 and
// 4 writer processes on one store. Needs STRATA_POSTGRES_URL (`make bench-postgres` starts a
// throwaway server; STRATA_BENCH_ONLY=insert stops after the first workload). `writer URL SCHEMA N`
// is the child mode of the concurrent-writer run.

let environment = ProcessInfo.processInfo.environment
let runs = Int(environment["STRATA_BENCH_RUNS"] ?? "") ?? 5
let arguments = CommandLine.arguments

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

func schemaURL(_ base: String, _ schema: String) -> String {
    base + (base.contains("?") ? "&" : "?") + "schema=\(schema)"
}

if arguments.count == 5, arguments[1] == "writer", let count = Int(arguments[4]) {
    // One writer process: `count` one-record saves on the shared store.
    let store = Store(
        backend: try await PostgresBackend.open(
            url: schemaURL(arguments[2], arguments[3]), schema: try BenchSchema.make()))
    let repository = store.repository(BenchItem.self)
    for index in 0..<count { try await repository.insert(BenchItem.make(index)) }
    try await store.close()
    exit(0)
}

guard let base = environment["STRATA_POSTGRES_URL"] else {
    print("StrataPostgresBench: set STRATA_POSTGRES_URL (make bench-postgres starts a server)")
    exit(2)
}

// The raw peer's own client.
let location = try PostgresLocation(url: base)
var logger = Logger(label: "raw")
logger.logLevel = .error
let raw = PostgresClient(
    configuration: .init(
        host: location.host, port: location.port, username: location.user, password: location.password,
        database: location.database, tls: .disable), backgroundLogger: logger)
let rawRun = Task { await raw.run() }

let columns =
    "id, strata_version, name, category, score, \"createdAt\", \"isActive\", note, quantity, ratio, code, region"
func rawDDL(_ schema: String) -> [String] {
    [
        "DROP SCHEMA IF EXISTS \(schema) CASCADE", "CREATE SCHEMA \(schema)",
        """
        CREATE TABLE \(schema).item (id uuid PRIMARY KEY, strata_version bigint NOT NULL, name \
        text COLLATE "C", category bigint, score double precision, "createdAt" double precision, \
        "isActive" boolean, note text COLLATE "C", quantity bigint, ratio double precision, code \
        text COLLATE "C", region text COLLATE "C")
        """,
        "CREATE INDEX ON \(schema).item (category, id)",
        "CREATE TABLE \(schema).parent (id uuid PRIMARY KEY, strata_version bigint NOT NULL, name text COLLATE \"C\")",
        """
        CREATE TABLE \(schema).child (id uuid PRIMARY KEY, strata_version bigint NOT NULL, name \
        text COLLATE "C", parent uuid)
        """,
        "CREATE INDEX ON \(schema).child (parent, id)",
    ]
}

func rawExecute(_ sql: String) async throws { try await raw.query(PostgresQuery(unsafeSQL: sql), logger: logger) }

/// The raw batch insert: one `INSERT … SELECT * FROM unnest(…)` in a transaction, as Strata's flush.
func rawInsert(_ items: [BenchItem], schema: String) async throws {
    try await raw.withTransaction(logger: logger) { connection in
        var binds = PostgresBindings()
        binds.append(items.map(\.id))
        binds.append(items.map { _ in 1 })
        binds.append(items.map(\.name))
        binds.append(items.map(\.category))
        binds.append(items.map(\.score))
        binds.append(items.map { $0.createdAt.timeIntervalSinceReferenceDate })
        binds.append(items.map(\.isActive))
        binds.append(items.map { $0.note ?? "" })
        binds.append(items.map(\.quantity))
        binds.append(items.map(\.ratio))
        binds.append(items.map(\.code))
        binds.append(items.map(\.region))
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO \(schema).item (\(columns)) SELECT a, b, c, d, e, f, g, NULLIF(h, ''), i, j, k, l
                    FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::bigint[], $5::float8[], $6::float8[],
                      $7::bool[], $8::text[], $9::bigint[], $10::float8[], $11::text[], $12::text[])
                      AS u(a, b, c, d, e, f, g, h, i, j, k, l)
                    """, binds: binds), logger: logger)
    }
}

/// The raw peer's rows as plain values (BenchItem's fields).
struct RawItem {
    var id: UUID, name: String, category: Int, score: Double, createdAt: Date, isActive: Bool
    var note: String?, quantity: Int, ratio: Double, code: String, region: String
}

func rawDecode(_ rows: PostgresRowSequence) async throws -> [RawItem] {
    var items: [RawItem] = []
    for try await (id, _, name, category, score, created, active, note, quantity, ratio, code, region) in rows.decode(
        (UUID, Int, String, Int, Double, Double, Bool, String?, Int, Double, String, String).self)
    {
        items.append(
            RawItem(
                id: id, name: name, category: category, score: score,
                createdAt: Date(timeIntervalSinceReferenceDate: created), isActive: active, note: note,
                quantity: quantity, ratio: ratio, code: code, region: region))
    }
    return items
}

func ourStore() async throws -> (Store, PostgresBackend, String) {
    let url = schemaURL(base, "bench_ours_\(UUID().uuidString.prefix(8).lowercased())")
    try await PostgresBackend.destroy(url: url)
    let backend = try await PostgresBackend.open(url: url, schema: try BenchSchema.make())
    return (Store(backend: backend), backend, url)
}

func median(_ label: String, _ body: () async throws -> Duration) async throws -> Double {
    var times: [Double] = []
    for _ in 0..<runs { times.append(milliseconds(try await body())) }
    return times.sorted()[times.count / 2]
}

func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
func report(_ name: String, _ ours: Double, _ peer: Double, target: Double? = nil) {
    let ratio = ours / max(peer, 0.0001)
    let verdict = target.map { ratio <= $0 ? "  (target ≤ \($0)×: met)" : "  (target ≤ \($0)×: MISSED)" } ?? ""
    print(
        pad(name, 44) + pad(String(format: "%.2f", ours), 12) + pad(String(format: "%.2f", peer), 12)
            + String(format: "%.2f×", ratio) + verdict)
}

let clock = ContinuousClock()
let items = (0..<InMemoryWorkloads.recordCount).map(BenchItem.make)
print("Strata PostgreSQL vs raw postgres-nio — median of \(runs) runs, milliseconds (release build)")
print(pad("workload", 44) + pad("strata", 12) + pad("raw", 12) + "ratio")

// Insert 100k records in one save.
let insertOurs = try await median("insert") {
    let (store, _, url) = try await ourStore()
    let start = clock.now
    try await store.repository(BenchItem.self).insert(contentsOf: items)
    let elapsed = clock.now - start
    try await store.close()
    try await PostgresBackend.destroy(url: url)
    return elapsed
}
let insertRaw = try await median("insert raw") {
    for statement in rawDDL("bench_raw") { try await rawExecute(statement) }
    let start = clock.now
    try await rawInsert(items, schema: "bench_raw")
    return clock.now - start
}
report("insert 100k in one save", insertOurs, insertRaw, target: 1.3)
if environment["STRATA_BENCH_ONLY"] == "insert" { exit(0) }

// The remaining workloads read one filled store each side.
let (store, backend, ourURL) = try await ourStore()
try await store.repository(BenchItem.self).insert(contentsOf: items)
for statement in rawDDL("bench_raw") { try await rawExecute(statement) }
try await rawInsert(items, schema: "bench_raw")
try await rawExecute("ANALYZE bench_raw.item")

var fetchedOurs = 0
let fetchOurs = try await median("fetch all") {
    let start = clock.now
    fetchedOurs = try await store.repository(BenchItem.self).fetch().count
    return clock.now - start
}
var fetchedRaw = 0
let fetchRaw = try await median("fetch all raw") {
    let start = clock.now
    fetchedRaw = try await rawDecode(
        try await raw.query(
            PostgresQuery(unsafeSQL: "SELECT \(columns) FROM bench_raw.item ORDER BY id"), logger: logger)
    ).count
    return clock.now - start
}
report("fetch all 100k", fetchOurs, fetchRaw, target: 1.5)
if fetchedOurs != fetchedRaw { print("  results differ: \(fetchedOurs) vs \(fetchedRaw)") }

let probes = Array(InMemoryWorkloads.probes(items).prefix(1_000))
let pointOurs = try await median("point") {
    let repository = store.repository(BenchItem.self)
    let start = clock.now
    for id in probes { _ = try await repository.fetch(id) }
    return clock.now - start
}
let pointRaw = try await median("point raw") {
    let start = clock.now
    for id in probes {
        _ = try await rawDecode(
            try await raw.query(
                """
                SELECT id, strata_version, name, category, score, "createdAt", "isActive", note, quantity, \
                ratio, code, region FROM bench_raw.item WHERE id = \(id)
                """,
                logger: logger))
    }
    return clock.now - start
}
report("point fetch ×1000 (each its own call)", pointOurs, pointRaw)

let indexedOurs = try await median("indexed") {
    let query = Query<BenchItem>.where(\.category == 7).sorted(by: \.score, .descending).limit(100)
    let start = clock.now
    for _ in 0..<100 { _ = try await store.repository(BenchItem.self).fetch(query) }
    return clock.now - start
}
let indexedRaw = try await median("indexed raw") {
    let start = clock.now
    for _ in 0..<100 {
        _ = try await rawDecode(
            try await raw.query(
                """
                SELECT id, strata_version, name, category, score, "createdAt", "isActive", note, quantity, \
                ratio, code, region FROM bench_raw.item WHERE category = \(7) ORDER BY score DESC NULLS \
                LAST, id LIMIT \(100)
                """,
                logger: logger))
    }
    return clock.now - start
}
report("indexed query ×100 (== 7, sort, limit 100)", indexedOurs, indexedRaw)

let cascadeOurs = try await median("cascade") {
    let parent = BenchParent(id: UUID(), name: "parent")
    try await store.transaction { tx in
        try tx.insert(parent)
        for index in 0..<InMemoryWorkloads.childCount {
            try tx.insert(BenchChild(id: UUID(), name: "child \(index)", parent: parent.id))
        }
    }
    let start = clock.now
    try await store.repository(BenchParent.self).delete(parent.id)
    return clock.now - start
}
let cascadeRaw = try await median("cascade raw") {
    let parent = UUID()
    let children = (0..<InMemoryWorkloads.childCount).map { _ in UUID() }
    try await raw.withTransaction(logger: logger) { connection in
        try await connection.query(
            "INSERT INTO bench_raw.parent (id, strata_version, name) VALUES (\(parent), 1, 'parent')", logger: logger)
        var binds = PostgresBindings()
        binds.append(children)
        binds.append(parent)
        try await connection.query(
            PostgresQuery(
                unsafeSQL:
                    """
                    INSERT INTO bench_raw.child (id, strata_version, name, parent) SELECT c, 1, 'child', $2 \
                    FROM unnest($1::uuid[]) AS u(c)
                    """,
                binds: binds), logger: logger)
    }
    let start = clock.now
    try await raw.withTransaction(logger: logger) { connection in
        try await connection.query("DELETE FROM bench_raw.child WHERE parent = \(parent)", logger: logger)
        try await connection.query("DELETE FROM bench_raw.parent WHERE id = \(parent)", logger: logger)
    }
    return clock.now - start
}
report("cascade delete: 1 parent, 10k children", cascadeOurs, cascadeRaw, target: 5)

// Round trips of a one-record save (statements sent; the unlock is not waited for).
let before = backend.roundTripCount
let saves = 200
let saveStart = clock.now
for index in 0..<saves { try await store.repository(BenchItem.self).insert(BenchItem.make(index)) }
let perSave = milliseconds(clock.now - saveStart) / Double(saves)
let statements = Double(backend.roundTripCount - before) / Double(saves)
print(
    String(
        format:
            "\none-record save: %.1f statements each (%.1f waited for; the lock's release is sent without waiting), "
            + "%.3f ms each",
        statements, statements - 1, perSave))
try await store.close()
try await PostgresBackend.destroy(url: ourURL)

// Saves per second from 1 and 4 writer processes on one store.
for processes in [1, 4] {
    let url = schemaURL(base, "bench_writers")
    try await PostgresBackend.destroy(url: url)
    let shared = try await PostgresBackend.open(url: url, schema: try BenchSchema.make())
    try await shared.close()
    let perProcess = 500
    let start = clock.now
    var children: [Process] = []
    for _ in 0..<processes {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: arguments[0])
        child.arguments = ["writer", base, "bench_writers", "\(perProcess)"]
        try child.run()
        children.append(child)
    }
    for child in children { child.waitUntilExit() }
    let seconds = milliseconds(clock.now - start) / 1_000
    let failed = children.filter { $0.terminationStatus != 0 }.count
    print(
        String(
            format: "%d writer process%@ × %d one-record saves: %.0f saves/s%@", processes, processes == 1 ? "" : "es",
            perProcess,
            Double(processes * perProcess) / seconds, failed > 0 ? " (\(failed) failed)" : ""))
    try await PostgresBackend.destroy(url: url)
}

try await rawExecute("DROP SCHEMA IF EXISTS bench_raw CASCADE")
rawRun.cancel()
