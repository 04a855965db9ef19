import Foundation
import GRDB
import StrataSQL
import StrataStorage
import Synchronization

/// Migrations on SQLite: the shared SQL schema-change plan (`SQLSchemaChangePlan`), inside one
/// SQLite transaction (DDL is transactional), so a failure or a killed process leaves the store as
/// it was. Entities whose shape does not change keep their tables untouched.
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
        try runStage(to: target, rebuilding: retired, creating: created, reindexing: reindexed, body)
    }
}

/// The statements of the shared plan, in SQLite's words (index names are global to the file;
/// SQLite keeps each index's statement as written, so it identifies the definition).
extension SQLiteSchemaChange: SQLSchemaChangeSteps {
    func storedIndexes(on table: String) throws -> [String: String] {
        var indexes: [String: String] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            arguments: [table])
        {
            if let index = String.fromDatabaseValue(row[0]), let sql = String.fromDatabaseValue(row[1]) {
                indexes[index] = sql
            }
        }
        return indexes
    }

    func definition(ofIndex name: String, sql: String) -> String { sql }

    func indexStatements(of entity: EntityDescription, in target: Schema) -> [(name: String, sql: String)] {
        SQLiteLayout(schema: target).indexStatements(entity)
    }

    func creationStatements(for entity: String, in target: Schema) -> [String] {
        SQLiteLayout(schema: target).creationStatements(for: entity)
    }

    func dropIndex(_ name: String) throws { try db.execute(sql: "DROP INDEX \(quoted(name))") }

    func extraTables(of entity: EntityDescription) -> [String] {
        entity.elementIndexedAttributes.map { "\(entity.name).\($0.name).elements" }
    }

    func setAside(_ table: String) throws {
        // Trigger names are global and the new table takes the same ones; the copy writes the new
        // table, so the old triggers have nothing left to keep.
        let triggers = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", arguments: [table])
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(quoted(trigger))") }
        try db.execute(
            sql: "ALTER TABLE \(quoted(table)) RENAME TO \(quoted(SQLSchemaChangePlan.setAsidePrefix + table))")
    }

    func dropSetAside(_ table: String) throws {
        try db.execute(sql: "DROP TABLE \(quoted(SQLSchemaChangePlan.setAsidePrefix + table))")
    }

    func execute(_ sql: String) throws { try db.execute(sql: sql) }

    func copy(
        from retired: Set<String>, to target: Schema,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws {
        let old = SQLiteReadTransaction(db: db, layout: SQLiteLayout(schema: schema, setAside: retired))
        let new = SQLiteWriteTransaction(db: db, layout: SQLiteLayout(schema: target))
        try body(old, new)
        transaction = new
    }

    func adopt(_ target: Schema) { schema = target }
}
