import Foundation
import GRDB
import StrataStorage
import Synchronization

/// Migrations on SQLite: the table-rebuild procedure, inside one SQLite transaction (DDL is
/// transactional), so a failure or a killed process leaves the store as it was.
///
/// Per stage, each entity being rebuilt has its secondary indexes dropped and its table (and the
/// link tables it owns) renamed aside under `strata_migrating.`; the new tables are created with
/// their indexes; the engine copies through the two views; the set-aside tables are dropped.
/// Entities whose shape does not change keep their tables untouched.
extension SQLiteBackend: SchemaChangingBackend {
    public func changeSchema<T: Sendable>(_ body: @escaping @Sendable (any SchemaChangeTransaction) throws -> T)
        async throws -> T
    {
        let schema = schema
        let commitsAtCheckpoints = isShadowCopy
        return try await run {
            try await self.writer.writeWithoutTransaction { db in
                // Dropping a large table inside a transaction keeps a statement journal of
                // what it frees; in memory (the connection's `temp_store`) it grows with the
                // table. In a file it does not.
                try db.execute(sql: "PRAGMA temp_store = FILE")
                defer { try? db.execute(sql: "PRAGMA temp_store = MEMORY") }
                try db.execute(sql: "BEGIN IMMEDIATE")
                do {
                    // On a shadow copy no one else reads, each checkpoint commits, so neither
                    // the heap nor the write-ahead log grows with the store.
                    let change = SQLiteSchemaChange(
                        db: db, schema: schema, commitsAtCheckpoints: commitsAtCheckpoints)
                    let result = try body(change)
                    try change.recordSchema()
                    try db.execute(sql: "COMMIT")
                    return result
                } catch {
                    if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                    throw error
                }
            }
        }
    }
}

final class SQLiteSchemaChange: SchemaChangeTransaction {
    let db: Database
    let commitsAtCheckpoints: Bool
    private(set) var schema: Schema
    private var transaction: SQLiteWriteTransaction

    init(db: Database, schema: Schema, commitsAtCheckpoints: Bool) {
        self.commitsAtCheckpoints = commitsAtCheckpoints
        self.db = db
        self.schema = schema
        self.transaction = SQLiteWriteTransaction(
            db: db, layout: SQLiteLayout(schema: schema))
    }

    var current: any StorageWriteTransaction { transaction }

    /// Records the schema the store now has, as the backend records it at creation.
    func recordSchema() throws {
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO \(SQLiteLayout.metaTable) (key, value) VALUES (?, ?), "
                + "('strata.schema.fingerprint', ?)",
            arguments: [
                SchemaDescription.metadataKey, Data(SchemaDescription(schema).encoded()), Data(schema.fingerprint.utf8),
            ])
    }

    func checkpoint() throws {
        guard commitsAtCheckpoints else { return }
        try db.execute(sql: "COMMIT")
        try db.execute(sql: "BEGIN IMMEDIATE")
    }

    func change(
        to target: Schema, rebuilding retired: Set<String>, creating created: Set<String>,
        reindexing reindexed: Set<String>,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws {
        let present = SQLiteLayout(schema: schema)
        var setAside: [String] = []
        for name in retired.sorted() {
            var tables = [quoted(name)]
            for (entity, relationship) in present.linkRelationships where entity.name == name {
                tables.append(SQLiteLayout.linkTable(entity.name, relationship.name))
            }
            for table in tables {
                // Index names are global: the new tables' indexes take the same ones.
                let unquoted = String(table.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
                for index in try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                    arguments: [unquoted])
                {
                    try db.execute(sql: "DROP INDEX \(quoted(index))")
                }
                let aside = quoted(SQLiteLayout.setAsidePrefix + unquoted)
                try db.execute(sql: "ALTER TABLE \(table) RENAME TO \(aside)")
                setAside.append(aside)
            }
        }
        let layout = SQLiteLayout(schema: target)
        for name in created.sorted() {
            for statement in layout.creationStatements(for: name) { try db.execute(sql: statement) }
        }
        for name in reindexed.sorted() {
            // The rows stay: indexes the target declares differently or not at all are dropped,
            // the missing ones built from the rows; an index both declare alike is kept.
            guard let entity = target.entity(name) else { continue }
            let wanted = Dictionary(
                layout.indexStatements(entity).map { ($0.name, $0.sql) }, uniquingKeysWith: { a, _ in a })
            var present: [String: String] = [:]
            for row in try Row.fetchAll(
                db,
                sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                arguments: [name])
            {
                if let index = String.fromDatabaseValue(row[0]), let sql = String.fromDatabaseValue(row[1]) {
                    present[index] = sql
                }
            }
            for (index, sql) in present where wanted[index] != sql {
                try db.execute(sql: "DROP INDEX \(quoted(index))")
            }
            for (index, sql) in wanted.sorted(by: { $0.key < $1.key }) where present[index] != sql {
                try db.execute(sql: sql)
            }
        }
        let old = SQLiteReadTransaction(
            db: db, layout: SQLiteLayout(schema: schema, setAside: retired))
        let new = SQLiteWriteTransaction(db: db, layout: layout)
        try body(old, new)
        for table in setAside { try db.execute(sql: "DROP TABLE \(table)") }
        schema = target
        transaction = new
    }
}
