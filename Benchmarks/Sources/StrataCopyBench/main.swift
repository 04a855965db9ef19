import BenchmarkWorkloads
import CLMDBRaw
import Foundation
import GRDB
import Strata
import StrataLMDB
import StrataSQLite
import StrataTools

// `strata copy` of N records (1M by default, STRATA_COPY_RECORDS) from SQLite to LMDB: the
// StoreCopier the command runs (page reads, engine load saves of 1,000 keeping versions, digests
// of both stores) beside a raw copy (GRDB reading the rows, RecordCodec bytes, mdb_put in
// transactions of 1,000). Each side runs in a process of its own, so its peak RSS (VmHWM) is its
// own; the source store is made by a third. `make bench-copy`.

func peakRSSMiB() -> Double { memoryMiB("VmHWM") }

let schema = try BenchSchema.make()
let arguments = CommandLine.arguments

if arguments.count == 4, arguments[1] == "--make" {
    let count = Int(arguments[3]) ?? 0
    let store = Store(backend: try await SQLiteBackend.open(path: arguments[2], schema: schema))
    for start in stride(from: 0, to: count, by: 10_000) {
        try await store.repository(BenchItem.self).insert(
            contentsOf: (start..<min(count, start + 10_000)).map(BenchItem.make))
    }
    try await store.close()
    exit(0)
}

if arguments.count == 4, arguments[1] == "--ours" {
    let begin = ContinuousClock.now
    let source = Store(backend: try await SQLiteBackend.open(path: arguments[2], schema: schema))
    let target = Store(
        backend: try await LMDBBackend.open(path: arguments[3], schema: schema, options: .init(initialMapSize: 4 << 30))
    )
    let outcome = try await StoreCopier(from: source, to: target, batch: 1_000).run()
    try await source.close()
    try await target.close()
    print("\(seconds(ContinuousClock.now - begin)) \(peakRSSMiB()) \(outcome.records) \(outcome.isEqual)")
    exit(0)
}

if arguments.count == 4, arguments[1] == "--peer" {
    let begin = ContinuousClock.now
    guard let entity = schema.entity("BenchItem") else { exit(1) }
    var env: OpaquePointer?
    mdb_env_create(&env)
    guard let env else { exit(1) }
    try FileManager.default.createDirectory(atPath: arguments[3], withIntermediateDirectories: true)
    mdb_env_set_mapsize(env, 4 << 30)
    guard mdb_env_open(env, arguments[3], UInt32(MDB_NOTLS), 0o644) == 0 else { exit(1) }
    var dbi: MDB_dbi = 0
    var txn: OpaquePointer?
    mdb_txn_begin(env, nil, 0, &txn)
    mdb_dbi_open(txn, nil, 0, &dbi)
    var inTransaction = 0
    var copied = 0
    let queue = try DatabaseQueue(path: arguments[2])
    try queue.read { db in
        let table =
            try String.fetchOne(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%BenchItem%'")
            ?? "BenchItem"
        let rows = try Row.fetchCursor(db, sql: "SELECT * FROM \"\(table)\"")
        while let row = try rows.next() {
            guard let idData: Data = row["id"] else { continue }
            let id = idData.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            var values: [String: Value] = [:]
            for attribute in entity.attributes {
                switch attribute.type {
                case .string: values[attribute.name] = (row[attribute.name] as String?).map(Value.string) ?? .null
                case .int: values[attribute.name] = (row[attribute.name] as Int64?).map(Value.int) ?? .null
                case .double: values[attribute.name] = (row[attribute.name] as Double?).map(Value.double) ?? .null
                case .bool: values[attribute.name] = (row[attribute.name] as Bool?).map(Value.bool) ?? .null
                case .date:
                    values[attribute.name] =
                        (row[attribute.name] as Double?).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
                        ?? .null
                default: values[attribute.name] = .null
                }
            }
            let version: Int64 = row["strata_version"] ?? 1
            let bytes = RecordCodec.encode(
                Record(entity: "BenchItem", id: .uuid(id), version: version, values: values), entity)
            withUnsafeBytes(of: id.uuid) { k in
                bytes.withUnsafeBytes { v in
                    var key = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                    var data = MDB_val(mv_size: v.count, mv_data: UnsafeMutableRawPointer(mutating: v.baseAddress))
                    _ = mdb_put(txn, dbi, &key, &data, 0)
                }
            }
            copied += 1
            inTransaction += 1
            if inTransaction == 1_000 {
                mdb_txn_commit(txn)
                mdb_txn_begin(env, nil, 0, &txn)
                inTransaction = 0
            }
        }
    }
    mdb_txn_commit(txn)
    mdb_env_close(env)
    print("\(seconds(ContinuousClock.now - begin)) \(peakRSSMiB()) \(copied) true")
    exit(0)
}

let count = Int(ProcessInfo.processInfo.environment["STRATA_COPY_RECORDS"] ?? "") ?? 1_000_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "strata-copy-bench-\(ProcessInfo.processInfo.processIdentifier)"
).path
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
let source = "\(directory)/source.sqlite"
let made = ContinuousClock.now
_ = try child(["--make", source, String(count)])
print(
    "source: \(count) BenchItem records (10 attributes) in SQLite, made in \(String(format: "%.1f", seconds(ContinuousClock.now - made))) s"
)
let ours = try child(["--ours", source, "\(directory)/ours.lmdb"]).split(separator: " ")
let peer = try child(["--peer", source, "\(directory)/peer.lmdb"]).split(separator: " ")
func field(_ parts: [Substring], _ index: Int) -> Double { Double(parts[index]) ?? 0 }
let (oursSeconds, oursRSS, peerSeconds, peerRSS) = (field(ours, 0), field(ours, 1), field(peer, 0), field(peer, 1))
print("strata copy SQLite → LMDB beside a raw copy (GRDB rows → mdb_put), \(count) records, one run each")
print("side                     seconds   records/s   peak RSS MiB")
print(
    String(
        format: "StoreCopier (strata copy) %7.1f   %9.0f   %8.1f   (digests equal: %@)", oursSeconds,
        Double(count) / oursSeconds, oursRSS, String(ours[3])))
print(
    String(format: "raw GRDB → mdb_put        %7.1f   %9.0f   %8.1f", peerSeconds, Double(count) / peerSeconds, peerRSS)
)
print(
    String(format: "ratio                    %7.2f×              %8.2f×", oursSeconds / peerSeconds, oursRSS / peerRSS))
