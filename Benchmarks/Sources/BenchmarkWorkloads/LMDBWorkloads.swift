import CLMDBRaw
import Foundation
import Strata
import StrataLMDB

/// Strata's LMDB backend beside raw `mdb_put`/`mdb_get` on the same bytes: the peer stores each
/// record as ``RecordCodec`` bytes under the same key encoding, with the same category index
/// (DUPSORT), and decodes to the same typed model, so the ratio is the engine's and backend's overhead.
public enum LMDBWorkloads {
    static let schema: Schema = {
        (try? BenchSchema.make()) ?? { preconditionFailure("the benchmark schema is valid") }()
    }()

    static func directory() -> String { SQLiteWorkloads.temporaryPath() + ".lmdb" }

    @Sendable static func ourStore() async throws -> Store {
        Store(
            backend: try await LMDBBackend.open(
                path: directory(), schema: schema, options: .init(initialMapSize: 1 << 30)))
    }

    /// A raw environment: one database of records, one DUPSORT index on category.
    final class Raw: @unchecked Sendable {
        // The MDB_env handle; each benchmark uses it from one task at a time.
        let env: OpaquePointer
        var records: MDB_dbi = 0
        var categories: MDB_dbi = 0
        var children: MDB_dbi = 0
        var childrenByParent: MDB_dbi = 0

        init() throws {
            var handle: OpaquePointer?
            mdb_env_create(&handle)
            guard let handle else { throw StrataError(.storageFailure, "mdb_env_create") }
            env = handle
            let path = directory()
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            mdb_env_set_maxdbs(env, 8)
            mdb_env_set_mapsize(env, 1 << 30)
            guard mdb_env_open(env, path, UInt32(MDB_NOTLS), 0o644) == 0 else {
                throw StrataError(.storageFailure, "mdb_env_open")
            }
            try write { txn in
                mdb_dbi_open(txn, "records", UInt32(MDB_CREATE), &records)
                mdb_dbi_open(txn, "category", UInt32(MDB_CREATE | MDB_DUPSORT), &categories)
                mdb_dbi_open(txn, "children", UInt32(MDB_CREATE), &children)
                mdb_dbi_open(txn, "children.parent", UInt32(MDB_CREATE | MDB_DUPSORT), &childrenByParent)
            }
        }

        deinit { mdb_env_close(env) }

        func write<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
            var txn: OpaquePointer?
            mdb_txn_begin(env, nil, 0, &txn)
            guard let txn else { throw StrataError(.storageFailure, "mdb_txn_begin") }
            let result = try body(txn)
            guard mdb_txn_commit(txn) == 0 else { throw StrataError(.storageFailure, "mdb_txn_commit") }
            return result
        }

        func read<T>(_ body: (OpaquePointer) throws -> T) throws -> T {
            var txn: OpaquePointer?
            mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
            guard let txn else { throw StrataError(.storageFailure, "mdb_txn_begin") }
            defer { mdb_txn_abort(txn) }
            return try body(txn)
        }
    }

    static func put(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: [UInt8], _ value: [UInt8]) {
        key.withUnsafeBytes { k in
            value.withUnsafeBytes { v in
                var keyVal = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                var dataVal = MDB_val(mv_size: v.count, mv_data: UnsafeMutableRawPointer(mutating: v.baseAddress))
                _ = mdb_put(txn, dbi, &keyVal, &dataVal, 0)
            }
        }
    }

    static func get(_ txn: OpaquePointer, _ dbi: MDB_dbi, _ key: [UInt8]) -> [UInt8]? {
        key.withUnsafeBytes { k in
            var keyVal = MDB_val(mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
            var dataVal = MDB_val()
            guard mdb_get(txn, dbi, &keyVal, &dataVal) == 0 else { return nil }
            return Array(UnsafeRawBufferPointer(start: dataVal.mv_data, count: dataVal.mv_size))
        }
    }

    static func uuidKey(_ id: UUID) -> [UInt8] { withUnsafeBytes(of: id.uuid) { Array($0) } }
    static func intKey(_ value: Int) -> [UInt8] {
        let flipped = UInt64(bitPattern: Int64(value)) ^ (1 << 63)
        return (0..<8).map { UInt8(truncatingIfNeeded: flipped >> (56 - 8 * $0)) }
    }

    /// The same work as our insert at the storage level: encode, put the record, put its index entry.
    static func rawInsert(_ items: [BenchItem], into raw: Raw) throws {
        guard let entity = schema.entity("BenchItem") else { return }
        try raw.write { txn in
            for item in items {
                var record = try item.record()
                record.version = 1
                let key = uuidKey(item.id)
                put(txn, raw.records, key, RecordCodec.encode(record, entity))
                put(txn, raw.categories, intKey(item.category), key)
            }
        }
    }

    static func rawDecode(_ bytes: [UInt8], _ id: UUID) throws -> BenchItem {
        guard let entity = schema.entity("BenchItem") else { throw StrataError(.unknownEntity, "BenchItem") }
        return try BenchItem(record: RecordCodec.decode(bytes, id: .uuid(id), entity))
    }

    public static let all: [Workload] = [
        Workload(
            name: "LMDB insert 100k (one save)", ours: StrataSide.insert(ourStore),
            peer: {
                let items = InMemoryWorkloads.makeItems()
                return {
                    let raw = try Raw()
                    try rawInsert(items, into: raw)
                    return items.count
                }
            }),
        Workload(
            name: "LMDB fetch all 100k as models", ours: StrataSide.fetchAll(ourStore),
            peer: {
                let raw = try Raw()
                try rawInsert(InMemoryWorkloads.makeItems(), into: raw)
                return {
                    try raw.read { txn in
                        var cursor: OpaquePointer?
                        mdb_cursor_open(txn, raw.records, &cursor)
                        defer { mdb_cursor_close(cursor) }
                        var key = MDB_val()
                        var value = MDB_val()
                        var items: [BenchItem] = []
                        var code = mdb_cursor_get(cursor, &key, &value, MDB_FIRST)
                        while code == 0 {
                            let idBytes = Array(UnsafeRawBufferPointer(start: key.mv_data, count: key.mv_size))
                            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                            withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: idBytes) }
                            items.append(
                                try rawDecode(
                                    Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)),
                                    UUID(uuid: raw)))
                            code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT)
                        }
                        return items.count
                    }
                }
            }),
        Workload(
            name: "LMDB 100k point fetches, one read", ours: StrataSide.pointFetches(ourStore),
            peer: {
                let items = InMemoryWorkloads.makeItems()
                let raw = try Raw()
                try rawInsert(items, into: raw)
                let ids = InMemoryWorkloads.probes(items)
                return {
                    try raw.read { txn in
                        var found = 0
                        for id in ids {
                            if let bytes = get(txn, raw.records, uuidKey(id)), (try? rawDecode(bytes, id)) != nil {
                                found += 1
                            }
                        }
                        return found
                    }
                }
            }),
        Workload(
            name: "LMDB indexed query + sort + limit 100", ours: StrataSide.indexedQuery(ourStore),
            peer: {
                let raw = try Raw()
                try rawInsert(InMemoryWorkloads.makeItems(), into: raw)
                return {
                    try raw.read { txn in
                        var cursor: OpaquePointer?
                        mdb_cursor_open(txn, raw.categories, &cursor)
                        defer { mdb_cursor_close(cursor) }
                        let category = intKey(7)
                        var items: [BenchItem] = []
                        try category.withUnsafeBytes { k in
                            var key = MDB_val(
                                mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                            var value = MDB_val()
                            var code = mdb_cursor_get(cursor, &key, &value, MDB_SET)
                            while code == 0 {
                                let idBytes = Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
                                var rawID: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                                withUnsafeMutableBytes(of: &rawID) { $0.copyBytes(from: idBytes) }
                                if let bytes = get(txn, raw.records, idBytes) {
                                    items.append(try rawDecode(bytes, UUID(uuid: rawID)))
                                }
                                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT_DUP)
                            }
                        }
                        return items.sorted { $0.score > $1.score }.prefix(100).count
                    }
                }
            }),
        Workload(
            name: "LMDB cascade delete: 1 parent, 10k children", ours: StrataSide.cascade(ourStore),
            peer: {
                let raw = try Raw()
                let parent = uuidKey(UUID())
                try raw.write { txn in
                    for _ in 0..<InMemoryWorkloads.childCount {
                        let child = uuidKey(UUID())
                        put(txn, raw.children, child, Array(repeating: 1, count: 40))
                        put(txn, raw.childrenByParent, parent, child)
                    }
                }
                return {
                    try raw.write { txn in
                        var cursor: OpaquePointer?
                        mdb_cursor_open(txn, raw.childrenByParent, &cursor)
                        var children: [[UInt8]] = []
                        parent.withUnsafeBytes { k in
                            var key = MDB_val(
                                mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                            var value = MDB_val()
                            var code = mdb_cursor_get(cursor, &key, &value, MDB_SET)
                            while code == 0 {
                                children.append(
                                    Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size)))
                                code = mdb_cursor_get(cursor, &key, &value, MDB_NEXT_DUP)
                            }
                        }
                        mdb_cursor_close(cursor)
                        for child in children {
                            child.withUnsafeBytes { k in
                                var key = MDB_val(
                                    mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                                _ = mdb_del(txn, raw.children, &key, nil)
                            }
                        }
                        parent.withUnsafeBytes { k in
                            var key = MDB_val(
                                mv_size: k.count, mv_data: UnsafeMutableRawPointer(mutating: k.baseAddress))
                            _ = mdb_del(txn, raw.childrenByParent, &key, nil)
                        }
                        var stat = MDB_stat()
                        mdb_stat(txn, raw.children, &stat)
                        return Int(stat.ms_entries)
                    }
                }
            }),
    ]
}
