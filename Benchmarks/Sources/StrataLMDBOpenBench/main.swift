import BenchmarkWorkloads
import CLMDBRaw
import Foundation
import Strata
import StrataLMDB

// What the LMDB backend's default structural walk costs at open: a store of N records (1M by
// default, STRATA_OPEN_RECORDS) opened and closed with the defaults (the data file walked in a
// child process before this process maps it) beside `verifyStructureAtOpen: false` and a raw
// `mdb_env_open` + first read transaction. Median of 5 of each, after one warm-up open (the file
// in the page cache, as a service restarting on the same machine finds it). `make bench-lmdb-open`.

func median(_ runs: Int, _ body: () async throws -> Void) async throws -> Double {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try await body()
        times.append(seconds(ContinuousClock.now - start))
    }
    return times.sorted()[runs / 2]
}

let count = Int(ProcessInfo.processInfo.environment["STRATA_OPEN_RECORDS"] ?? "") ?? 1_000_000
let path = NSTemporaryDirectory() + "strata-lmdb-open-\(count)"
let schema = try BenchSchema.make()

if !FileManager.default.fileExists(atPath: path + "/data.mdb") {
    print("making a store of \(count) records at \(path) …")
    let store = Store(
        backend: try await LMDBBackend.open(path: path, schema: schema, options: .init(initialMapSize: 4 << 30)))
    for start in stride(from: 0, to: count, by: 10_000) {
        try await store.repository(BenchItem.self).insert(
            contentsOf: (start..<min(count, start + 10_000)).map(BenchItem.make))
    }
    try await store.close()
}
let size = (try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) ?? 0

func openAndClose(_ options: LMDBBackend.Options) async throws {
    let backend = try await LMDBBackend.open(path: path, schema: schema, options: options)
    try await backend.close()
}

func rawOpen() throws {
    var env: OpaquePointer?
    mdb_env_create(&env)
    guard let env else { throw StrataError(.storageFailure, "mdb_env_create") }
    defer { mdb_env_close(env) }
    mdb_env_set_maxdbs(env, 256)
    guard mdb_env_open(env, path, UInt32(MDB_NOTLS | MDB_RDONLY), 0o644) == 0 else {
        throw StrataError(.storageFailure, "mdb_env_open")
    }
    var txn: OpaquePointer?
    mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
    mdb_txn_abort(txn)
}

/// Empties the page cache (root only), so the next open reads the file from disk.
func dropCaches() -> Bool {
    sync()
    return (try? "3\n".write(toFile: "/proc/sys/vm/drop_caches", atomically: false, encoding: .utf8)) != nil
}

func report(_ label: String, cold: Bool) async throws {
    let prepare = { if cold { _ = dropCaches() } }
    let walked = try await median(5) {
        prepare()
        try await openAndClose(LMDBBackend.Options())
    }
    let unwalked = try await median(5) {
        prepare()
        try await openAndClose(LMDBBackend.Options(verifyStructureAtOpen: false))
    }
    let raw = try await median(5) {
        prepare()
        try rawOpen()
    }
    print("LMDB open of \(count) records (\(size >> 20) MiB data file), \(label), median of 5:")
    print(String(format: "  defaults (walked in a child)        %9.2f ms", walked * 1000))
    print(String(format: "  verifyStructureAtOpen: false        %9.2f ms", unwalked * 1000))
    print(String(format: "  raw mdb_env_open + read txn         %9.2f ms", raw * 1000))
    print(String(format: "  defaults / raw                      %9.0f×", walked / max(raw, 1e-9)))
    let added = walked - unwalked
    print(String(format: "  the walk adds %.1f ms (%.0f MiB/s)", added * 1000, Double(size >> 20) / max(added, 1e-9)))
}

try await openAndClose(LMDBBackend.Options())
try await report("file in the page cache", cold: false)
if dropCaches() {
    try await report("page cache emptied before each open", cold: true)
} else {
    print("(not root: the cold-cache figures need /proc/sys/vm/drop_caches)")
}
