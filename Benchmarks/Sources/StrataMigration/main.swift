import BenchmarkWorkloads
import CLMDBRaw
import Foundation
import GRDB
import Strata
import StrataLMDB
import StrataSQLite
import Synchronization

// Migrating a large store (`make bench-migration`): for SQLite and LMDB and each N
// (STRATA_MIGRATION_SIZES, default 100000,1000000), a child process of its own fills a store of N
// ten-attribute records, then runs four migrations one after the other, each opening the store
// with a plan one version further:
//   add      an attribute with a default (lightweight)
//   rename   an attribute (renamedFrom, lightweight)
//   index    an index on an attribute (lightweight)
//   custom   a custom stage rewriting every record (same shape, new version)
// For each, in a process of its own: wall time, peak RSS (VmHWM, reset before it through
// clear_refs; LMDB's mapped file pages count in it) and the peak heap (RssAnon sampled per batch). The
// raw peer does the same change in the same process on a store of the same N rows: SQLite through
// GRDB with the table-rebuild procedure (and, for reference, ALTER TABLE where SQLite has it),
// CREATE INDEX and UPDATE; LMDB with one write transaction rewriting each value (or building the
// index database). Each migration runs in place and through a shadow copy (STRATA_MIGRATION_STRATEGIES),
// each on a store of its own. Printed: ours, peer, ours ÷ peer.

let environment = ProcessInfo.processInfo.environment
let arguments = CommandLine.arguments

/// In place (one write transaction) or through a shadow copy committing each batch: set by the
/// parent for each run (STRATA_MIGRATION_STRATEGIES, default inPlace,shadowCopy).
let strategyName = environment["STRATA_MIGRATION_STRATEGY"] ?? "inPlace"
let strategy: MigrationStrategy =
    strategyName == "shadowCopy" ? .shadowCopy() : strategyName == "automatic" ? .automatic : .inPlace

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func resetPeak() { try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8) }

func rss(_ field: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
    else { return 0 }
    return kilobytes / 1024
}

/// The versions: 1 is BenchItem; each later one adds one change.
func versions() throws -> [SchemaVersion] {
    var entity = try BenchItem.entityDescription()
    let v1 = try Schema(entities: [entity])
    entity.attributes.append(AttributeDescription(name: "flag", type: .bool, defaultValue: .bool(false)))
    let v2 = try Schema(entities: [entity])
    if let code = entity.attributes.firstIndex(where: { $0.name == "code" }) {
        entity.attributes[code].name = "sku"
        entity.attributes[code].renamedFrom = "code"
    }
    let v3 = try Schema(entities: [entity])
    if let region = entity.attributes.firstIndex(where: { $0.name == "region" }) {
        entity.attributes[region].isIndexed = true
    }
    let v4 = try Schema(entities: [entity])
    return [
        SchemaVersion("1", v1), SchemaVersion("2", v2), SchemaVersion("3", v3), SchemaVersion("4", v4),
        SchemaVersion("5", v4),
    ]
}

let custom = MigrationStage.custom(from: "4", to: "5") { migration in
    try migration.forEachRecord("BenchItem") { record in
        var changed = record
        changed["flag"] = record["isActive"]
        try migration.put(changed)
    }
}

func openBackend(_ backend: String, _ path: String, _ schema: Schema) async throws -> any StorageBackend {
    backend == "sqlite"
        ? try await SQLiteBackend.open(
            path: path, schema: schema,
            options: .init(cacheSizeMiB: Int(environment["STRATA_MIGRATION_SQLITE_CACHE_MIB"] ?? "") ?? 64))
        : try await LMDBBackend.open(path: path, schema: schema, options: .init(initialMapSize: 1 << 30))
}

/// The registry the migrations open through, with the backends' options of `openBackend`.
let registry: BackendRegistry = {
    let registry = BackendRegistry()
    SQLiteBackend.register(
        in: registry,
        options: .init(cacheSizeMiB: Int(environment["STRATA_MIGRATION_SQLITE_CACHE_MIB"] ?? "") ?? 64))
    LMDBBackend.register(in: registry, options: .init(initialMapSize: 1 << 30))
    return registry
}()

/// A version 1 store of `count` records at `path`.
func fill(_ backend: String, _ count: Int, _ path: String) async throws {
    let store = Store(backend: try await openBackend(backend, path, try versions()[0].schema))
    var inserted = 0
    while inserted < count {
        let items = (inserted..<min(count, inserted + 10_000)).map(BenchItem.make)
        try await store.repository(BenchItem.self).insert(contentsOf: items)
        inserted += items.count
    }
    try await store.close()
}

/// Ours: fill the store here, then run each migration in a process of its own, so its peak
/// memory is the migration's alone (a process keeps the heap the fill grew).
func ours(_ backend: String, _ count: Int, _ path: String) async throws -> [(Double, Double, Double)] {
    try await fill(backend, count, path)
    var results: [(Double, Double, Double)] = []
    for step in 1...4 {
        let output = try child(["step", backend, path, String(step)])
        let cells = output.split(separator: "\t").compactMap { Double($0) }
        results.append(cells.count == 3 ? (cells[0], cells[1], cells[2]) : (.nan, .nan, .nan))
    }
    return results
}

/// One migration, in this (child) process: prints seconds, peak RSS and peak anonymous RSS.
func migrate(_ backend: String, _ path: String, _ step: Int) async throws {
    let all = try versions()
    let plan = MigrationPlan(
        versions: Array(all.prefix(step + 1)), stages: step == 4 ? [custom] : [], strategy: strategy)
    resetPeak()
    var anonymous = rss("RssAnon")
    var migrated: Store?
    let took = try await seconds {
        // Heap (anonymous) memory, sampled after each batch: LMDB's mapped file pages and
        // SQLite's page cache count in the peak RSS too.
        let sampled = Mutex((phase: "", anonymous: anonymous))
        let notes = environment["STRATA_MIGRATION_PHASES"] != nil
        migrated = try await Store.open(
            "\(backend):\(path)", schema: all[step].schema,
            options: OpenOptions(
                registry: registry, migrations: plan,
                progress: { step in
                    let now = rss("RssAnon")
                    sampled.withLock { sample in
                        if notes, "\(step.phase)" != sample.phase || now > sample.anonymous + 32 {
                            sample.phase = "\(step.phase)"
                            print("NOTE\tstep \(step): heap \(Int(now)) MiB")
                        }
                        sample.anonymous = max(sample.anonymous, now)
                    }
                }))
        anonymous = sampled.withLock { $0.anonymous }
    }
    let peak = rss("VmHWM")
    try await migrated?.close()
    print("RESULT\t" + String(format: "%.3f\t%.0f\t%.0f", took, peak, anonymous))
}

func child(_ childArguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = childArguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    for line in output.split(separator: "\n") where line.hasPrefix("NOTE\t") { print(line) }
    return output.split(separator: "\n").first { $0.hasPrefix("RESULT\t") }.map { String($0.dropFirst(7)) } ?? ""
}

/// The SQLite peer: the same rows in an equivalent table, changed with GRDB.
func sqlitePeer(_ count: Int, _ path: String) throws -> [(Double, Double)] {
    let queue = try DatabaseQueue(path: path)
    let columns =
        "name TEXT, category INTEGER, score REAL, createdAt REAL, isActive INTEGER, note TEXT, quantity INTEGER, ratio REAL, code TEXT, region TEXT"
    try queue.write { db in
        try db.execute(sql: "CREATE TABLE items (id BLOB PRIMARY KEY NOT NULL, version INTEGER NOT NULL, \(columns))")
        try db.execute(sql: "CREATE INDEX items_category ON items (category, id)")
        let statement = try db.makeStatement(sql: "INSERT INTO items VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        for n in 0..<count {
            let item = BenchItem.make(n)
            try statement.execute(arguments: [
                withUnsafeBytes(of: item.id.uuid) { Data($0) }, item.name, item.category, item.score,
                item.createdAt.timeIntervalSince1970,
                item.isActive, item.note, item.quantity, item.ratio, item.code, item.region,
            ])
        }
    }
    func timed(_ sql: String) throws -> (Double, Double) {
        resetPeak()
        let start = Date()
        try queue.write { db in try db.execute(sql: sql) }
        return (Date().timeIntervalSince(start), rss("VmHWM"))
    }
    let newColumns = columns + ", flag INTEGER NOT NULL DEFAULT 0"
    let add = try timed(
        """
        CREATE TABLE new_items (id BLOB PRIMARY KEY NOT NULL, version INTEGER NOT NULL, \(newColumns));
        INSERT INTO new_items SELECT *, 0 FROM items; DROP TABLE items; ALTER TABLE new_items RENAME TO items;
        CREATE INDEX items_category ON items (category, id);
        """)
    let rename = try timed(
        """
        CREATE TABLE new_items (id BLOB PRIMARY KEY NOT NULL, version INTEGER NOT NULL, \(newColumns.replacingOccurrences(of: "code TEXT", with: "sku TEXT")));
        INSERT INTO new_items SELECT * FROM items; DROP TABLE items; ALTER TABLE new_items RENAME TO items;
        CREATE INDEX items_category ON items (category, id);
        """)
    let index = try timed("CREATE INDEX items_region ON items (region, id)")
    let update = try timed("UPDATE items SET flag = isActive, version = version + 1")
    // For reference: SQLite's own ALTER TABLE, which changes only the schema text.
    let alter = try timed("ALTER TABLE items ADD COLUMN extra INTEGER NOT NULL DEFAULT 0")
    print(
        "NOTE\tsqlite ALTER TABLE ADD COLUMN alone: \(String(format: "%.3f", alter.0)) s (metadata only; a store that checksums each row cannot skip the rewrite)"
    )
    return [add, rename, index, update]
}

/// The LMDB peer: the same record bytes under the same keys, each change in one write transaction.
func lmdbPeer(_ count: Int, _ path: String) throws -> [(Double, Double)] {
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    var env: OpaquePointer?
    mdb_env_create(&env)
    guard let env else { throw StrataError(.storageFailure, "mdb_env_create") }
    defer { mdb_env_close(env) }
    mdb_env_set_maxdbs(env, 8)
    mdb_env_set_mapsize(env, 1 << 34)
    guard mdb_env_open(env, path, UInt32(MDB_NOTLS), 0o644) == 0 else {
        throw StrataError(.storageFailure, "mdb_env_open")
    }
    let all = try versions()
    func write(_ body: (OpaquePointer) throws -> Void) throws {
        var txn: OpaquePointer?
        mdb_txn_begin(env, nil, 0, &txn)
        guard let txn else { throw StrataError(.storageFailure, "mdb_txn_begin") }
        try body(txn)
        guard mdb_txn_commit(txn) == 0 else { throw StrataError(.storageFailure, "mdb_txn_commit") }
    }
    func put(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8], _ flags: Int32 = 0) {
        key.withUnsafeBytes { k in
            value.withUnsafeBytes { v in
                var keyVal = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                var dataVal = MDB_val(mv_size: v.count, mv_data: UnsafeMutableRawPointer(mutating: v.baseAddress))
                _ = mdb_put(txn, dbi, &keyVal, &dataVal, UInt32(flags))
            }
        }
    }
    var records: MDB_dbi = 0
    guard let v1 = all[0].schema.entity("BenchItem") else { return [] }
    try write { txn in
        mdb_dbi_open(txn, "records", UInt32(MDB_CREATE), &records)
        for n in 0..<count {
            let item = BenchItem.make(n)
            var record = try item.record()
            record.version = 1
            put(
                txn, records, withUnsafeBytes(of: item.id.uuid) { Array($0) },
                RecordCodec.encode(record.inLayout(v1.layout), v1))
        }
    }
    /// Decodes each record with `from`, changes it, encodes it with `to` into a fresh database.
    func rewrite(from: EntityDescription, to: EntityDescription, _ change: (inout Strata.Record) -> Void) throws -> (
        Double, Double
    ) {
        resetPeak()
        let start = Date()
        try write { txn in
            var fresh: MDB_dbi = 0
            mdb_dbi_open(txn, "fresh", UInt32(MDB_CREATE), &fresh)
            var cursor: OpaquePointer?
            mdb_cursor_open(txn, records, &cursor)
            var key = MDB_val()
            var value = MDB_val()
            var code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
            while code == 0 {
                let keyBytes = Array(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size))
                let id = keyBytes.withUnsafeBytes { RecordID.uuid(UUID(uuid: $0.loadUnaligned(as: uuid_t.self))) }
                var record = try RecordCodec.decode(
                    Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)), id: id, from)
                record = record.inLayout(to.layout)
                change(&record)
                put(txn, fresh, keyBytes, RecordCodec.encode(record, to), MDB_APPEND)
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
            mdb_drop(txn, records, 1)
            var renamed: MDB_dbi = 0
            mdb_dbi_open(txn, "records", UInt32(MDB_CREATE), &renamed)
            // LMDB cannot rename: the rewritten records move back under the old name.
            mdb_cursor_open(txn, fresh, &cursor)
            code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
            while code == 0 {
                _ = mdb_put(txn, renamed, &key, &value, UInt32(MDB_APPEND))
                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
            }
            mdb_cursor_close(cursor)
            mdb_drop(txn, fresh, 1)
            records = renamed
        }
        return (Date().timeIntervalSince(start), rss("VmHWM"))
    }
    let entities = try all.map { try $0.schema.requireEntity("BenchItem") }
    let add = try rewrite(from: entities[0], to: entities[1]) { $0["flag"] = .bool(false) }
    let rename = try rewrite(from: entities[1], to: entities[2]) { _ in }
    resetPeak()
    let start = Date()
    try write { txn in
        var index: MDB_dbi = 0
        mdb_dbi_open(txn, "region", UInt32(MDB_CREATE | MDB_DUPSORT), &index)
        var cursor: OpaquePointer?
        mdb_cursor_open(txn, records, &cursor)
        var key = MDB_val()
        var value = MDB_val()
        var code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
        while code == 0 {
            let keyBytes = Array(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size))
            let id = keyBytes.withUnsafeBytes { RecordID.uuid(UUID(uuid: $0.loadUnaligned(as: uuid_t.self))) }
            let record = try RecordCodec.decode(
                Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)), id: id, entities[2])
            if case .string(let region) = record["region"] { put(txn, index, Array(region.utf8), keyBytes) }
            code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
        }
        mdb_cursor_close(cursor)
    }
    let index = (Date().timeIntervalSince(start), rss("VmHWM"))
    let custom = try rewrite(from: entities[3], to: entities[4]) { record in
        record["flag"] = record["isActive"]
        record.version += 1
    }
    return [add, rename, index, custom]
}

// For profiling one migration: `fill BACKEND PATH N`, then `step BACKEND PATH 1…4` in order.
if arguments.count == 5, arguments[1] == "fill", let count = Int(arguments[4]) {
    try await fill(arguments[2], count, arguments[3])
    exit(0)
}

if arguments.count == 5, arguments[1] == "step", let step = Int(arguments[4]) {
    try await migrate(arguments[2], arguments[3], step)
    exit(0)
}

if arguments.count == 5, arguments[1] == "peer", let count = Int(arguments[3]) {
    let steps = arguments[2] == "sqlite" ? try sqlitePeer(count, arguments[4]) : try lmdbPeer(count, arguments[4])
    print("RESULT\t" + steps.map { String(format: "%.3f\t%.0f", $0.0, $0.1) }.joined(separator: "\t"))
    exit(0)
}

if arguments.count == 4, arguments[1] == "one", let count = Int(arguments[3]) {
    let backend = arguments[2]
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("strata-migration-\(UUID().uuidString)")
        .path
    defer {
        for suffix in ["", "-wal", "-shm", ".peer", ".peer-wal", ".peer-shm"] {
            try? FileManager.default.removeItem(atPath: base + suffix)
        }
    }
    let mine = try await ours(backend, count, base)
    // The peer in a process of its own too: this one holds the heap of our fill.
    let peerCells = try child(["peer", backend, String(count), base + ".peer"]).split(separator: "\t").compactMap {
        Double($0)
    }
    let peer = stride(from: 0, to: peerCells.count - 1, by: 2).map { (peerCells[$0], peerCells[$0 + 1]) }
    for (name, (ourStep, peerStep)) in zip(["add", "rename", "index", "custom"], zip(mine, peer)) {
        print(
            "RESULT\t\(backend)\t\(count)\t\(strategyName)\t\(name)\t"
                + String(
                    format: "%.2f\t%.0f\t%.0f\t%.2f\t%.0f\t%.1f×", ourStep.0, ourStep.1, ourStep.2, peerStep.0,
                    peerStep.1, ourStep.0 / max(peerStep.0, 1e-6)))
    }
    exit(0)
}

let sizes = (environment["STRATA_MIGRATION_SIZES"] ?? "100000,1000000").split(separator: ",").compactMap { Int($0) }
let backends = (environment["STRATA_MIGRATION_BACKENDS"] ?? "sqlite,lmdb").split(separator: ",").map(String.init)
let strategies = (environment["STRATA_MIGRATION_STRATEGIES"] ?? "inPlace,shadowCopy").split(separator: ",").map(
    String.init)
print(
    "| backend | N | strategy | migration | ours s | ours peak RSS MiB | ours peak heap (RssAnon) MiB | peer s | peer peak RSS MiB | ours ÷ peer |"
)
print("|---|---|---|---|---|---|---|---|---|---|")
for backend in backends {
    for size in sizes {
        for strategy in strategies {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: arguments[0])
            process.arguments = ["one", backend, String(size)]
            process.environment = environment.merging(["STRATA_MIGRATION_STRATEGY": strategy], uniquingKeysWith: { $1 })
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let lines = output.split(separator: "\n")
            for line in lines where line.hasPrefix("RESULT\t") {
                print("| " + line.dropFirst(7).split(separator: "\t").joined(separator: " | ") + " |")
            }
            for line in lines where line.hasPrefix("NOTE\t") {
                print("note (\(backend), \(size)): " + line.dropFirst(5))
            }
            if !lines.contains(where: { $0.hasPrefix("RESULT\t") }) {
                print("| \(backend) | \(size) | \(strategy) | failed (exit \(process.terminationStatus)) |")
            }
        }
    }
}
