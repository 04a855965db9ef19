import Foundation
import GRDB
import Strata
import StrataSQLite

/// Strata's SQLite backend beside raw GRDB doing the same work with prepared statements, on the
/// same file settings (WAL, synchronous=NORMAL) and an equivalent table (same columns, same index).
public enum SQLiteWorkloads {
    static let recordCount = InMemoryWorkloads.recordCount
    static let childCount = InMemoryWorkloads.childCount

    /// Every database a run creates lives here; ``removeTemporaryFiles()`` deletes it.
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-bench-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    public static func temporaryPath() -> String {
        directory.appendingPathComponent("\(UUID().uuidString).sqlite").path
    }

    public static func removeTemporaryFiles() {
        try? FileManager.default.removeItem(at: directory)
    }

    @Sendable static func ourStore() async throws -> Store {
        Store(backend: try await SQLiteBackend.open(path: temporaryPath(), schema: try BenchSchema.make()))
    }

    // MARK: Raw GRDB

    public static func rawPool() throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: temporaryPath(), configuration: configuration)
        try pool.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE items (id BLOB PRIMARY KEY NOT NULL, name TEXT, category INTEGER, score REAL,
                      createdAt REAL,
                      isActive INTEGER, note TEXT, quantity INTEGER, ratio REAL, code TEXT, region TEXT);
                    CREATE INDEX items_category ON items (category);
                    CREATE TABLE parents (id BLOB PRIMARY KEY NOT NULL, name TEXT);
                    CREATE TABLE children (id BLOB PRIMARY KEY NOT NULL, name TEXT, parent BLOB);
                    CREATE INDEX children_parent ON children (parent);
                    """)
        }
        return pool
    }

    public static func blob(_ id: UUID) -> Data { withUnsafeBytes(of: id.uuid) { Data($0) } }

    public static func rawInsert(_ items: [BenchItem], into pool: DatabasePool) throws {
        try pool.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            for item in items {
                try statement.execute(arguments: [
                    blob(item.id), item.name, item.category, item.score, item.createdAt.timeIntervalSinceReferenceDate,
                    item.isActive, item.note, item.quantity, item.ratio, item.code, item.region,
                ])
            }
        }
    }

    static func rawItem(_ row: Row) -> BenchItem {
        let idBytes: Data = row[0]
        return BenchItem(
            id: withUnsafeBytes(of: idBytes) { _ in SQLiteWorkloads.uuid(idBytes) }, name: row[1], category: row[2],
            score: row[3],
            createdAt: Date(timeIntervalSinceReferenceDate: row[4]), isActive: row[5], note: row[6], quantity: row[7],
            ratio: row[8], code: row[9], region: row[10])
    }

    static func uuid(_ bytes: Data) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes.prefix(16)) }
        return UUID(uuid: raw)
    }

    public static let all: [Workload] = [
        Workload(
            name: "SQLite insert 100k (one save)", ours: StrataSide.insert(ourStore),
            peer: {
                let items = InMemoryWorkloads.makeItems()
                return {
                    let pool = try rawPool()
                    try rawInsert(items, into: pool)
                    try pool.close()
                    return items.count
                }
            }),
        Workload(
            name: "SQLite fetch all 100k as models", ours: StrataSide.fetchAll(ourStore),
            peer: {
                let pool = try rawPool()
                try rawInsert(InMemoryWorkloads.makeItems(), into: pool)
                return {
                    try await pool.read { db in
                        try Row.fetchAll(db, sql: "SELECT * FROM items ORDER BY id").map(rawItem).count
                    }
                }
            }),
        Workload(
            name: "SQLite 100k point fetches, one read", ours: StrataSide.pointFetches(ourStore),
            peer: {
                let items = InMemoryWorkloads.makeItems()
                let pool = try rawPool()
                try rawInsert(items, into: pool)
                let ids = InMemoryWorkloads.probes(items)
                return {
                    try await pool.read { db in
                        let statement = try db.makeStatement(sql: "SELECT * FROM items WHERE id = ?")
                        var found = 0
                        for id in ids {
                            if try Row.fetchOne(statement, arguments: [blob(id)]).map(rawItem) != nil { found += 1 }
                        }
                        return found
                    }
                }
            }),
        Workload(
            name: "SQLite 100k point fetches, one read each", ours: StrataSide.pointFetchesEach(ourStore),
            peer: {
                let items = InMemoryWorkloads.makeItems()
                let pool = try rawPool()
                try rawInsert(items, into: pool)
                let ids = InMemoryWorkloads.probes(items)
                return {
                    var found = 0
                    for id in ids {
                        let item = try await pool.read { db in
                            try Row.fetchOne(
                                db.cachedStatement(sql: "SELECT * FROM items WHERE id = ?"), arguments: [blob(id)]
                            ).map(rawItem)
                        }
                        if item != nil { found += 1 }
                    }
                    return found
                }
            }),
        Workload(
            name: "SQLite indexed query + sort + limit 100", ours: StrataSide.indexedQuery(ourStore),
            peer: {
                let pool = try rawPool()
                try rawInsert(InMemoryWorkloads.makeItems(), into: pool)
                return {
                    try await pool.read { db in
                        try Row.fetchAll(
                            db, sql: "SELECT * FROM items WHERE category = ? ORDER BY score DESC, id LIMIT 100",
                            arguments: [7]
                        ).map(rawItem).count
                    }
                }
            }),
        Workload(
            name: "SQLite cascade delete: 1 parent, 10k children", ours: StrataSide.cascade(ourStore),
            peer: {
                let pool = try rawPool()
                let parent = UUID()
                try await pool.write { db in
                    try db.execute(sql: "INSERT INTO parents VALUES (?, ?)", arguments: [blob(parent), "parent"])
                    let statement = try db.makeStatement(sql: "INSERT INTO children VALUES (?, ?, ?)")
                    for index in 0..<childCount {
                        try statement.execute(arguments: [blob(UUID()), "child \(index)", blob(parent)])
                    }
                }
                return {
                    try await pool.write { db in
                        try db.execute(sql: "DELETE FROM children WHERE parent = ?", arguments: [blob(parent)])
                        try db.execute(sql: "DELETE FROM parents WHERE id = ?", arguments: [blob(parent)])
                        return try Int.fetchOne(db, sql: "SELECT count(*) FROM children") ?? -1
                    }
                }
            }),
    ]
}
