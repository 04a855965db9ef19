import PostgresNIO
import StrataSQL
import StrataStorage

/// Migrations on PostgreSQL: the whole plan in one transaction (PostgreSQL's DDL is
/// transactional), under the store's advisory lock, so a failure, a lost connection or a killed
/// process leaves the store as it was, and no other process writes meanwhile.
///
/// Each stage follows the shared SQL schema-change plan (`SQLSchemaChangePlan`).
extension PostgresBackend: SchemaChangingBackend {
    public func changeSchema<T: Sendable>(_ body: @escaping @Sendable (any SchemaChangeTransaction) throws -> T)
        async throws -> T
    {
        let (schema, namespace, channel) = (schema, location.schemaName, channel)
        return try await locked { session in
            try Self.transaction(session) {
                let change = PostgresSchemaChange(
                    session: session, schema: schema, namespace: namespace, channel: channel)
                let result = try body(change)
                try change.finish()
                return result
            }
        }
    }
}

final class PostgresSchemaChange: SchemaChangeTransaction {
    let session: PostgresSession
    let namespace: String
    let channel: String
    private(set) var schema: Schema
    private var transaction: PostgresWriteTransaction

    init(session: PostgresSession, schema: Schema, namespace: String, channel: String) {
        self.session = session
        self.namespace = namespace
        self.channel = channel
        self.schema = schema
        self.transaction = PostgresWriteTransaction(
            session: session, layout: PostgresLayout(schema: schema, namespace: namespace), channel: channel,
            inTransaction: true)
    }

    var current: any StorageWriteTransaction { transaction }

    /// Flushes the last writes and records the schema the store now has.
    func finish() throws {
        try transaction.flush()
        try PostgresBackend.recordSchema(
            schema, layout: PostgresLayout(schema: schema, namespace: namespace), in: session, format: false)
    }

    /// Writes what the stage holds so far (memory stays bounded by a batch); the transaction goes on.
    func checkpoint() throws {
        try transaction.flush()
    }

    func change(
        to target: Schema, rebuilding retired: Set<String>, creating created: Set<String>,
        reindexing reindexed: Set<String>,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws {
        try transaction.flush()
        try runStage(to: target, rebuilding: retired, creating: created, reindexing: reindexed, body)
    }
}

/// The statements of the shared plan, in PostgreSQL's words (index names are per schema and hash
/// the index's definition, so the name identifies it).
extension PostgresSchemaChange: SQLSchemaChangeSteps {
    func storedIndexes(on table: String) throws -> [String: String] {
        var binds = PostgresBindings()
        binds.append(strata: .string(namespace))
        binds.append(strata: .string(PostgresLayout.shortened(table)))
        let names = try session.rows(
            "SELECT indexname::text FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND (indexname LIKE "
                + "'strata\\_i\\_%' OR indexname LIKE 'strata\\_l\\_%')",
            binds
        ).compactMap { row -> String? in
            if case .string(let name) = try PostgresValues.value(row.makeRandomAccess()[0], as: .string) { return name }
            return nil
        }
        return Dictionary(names.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
    }

    func definition(ofIndex name: String, sql: String) -> String { name }

    func indexStatements(of entity: EntityDescription, in target: Schema) -> [(name: String, sql: String)] {
        PostgresLayout(schema: target, namespace: namespace).indexStatements(entity)
    }

    func creationStatements(for entity: String, in target: Schema) -> [String] {
        PostgresLayout(schema: target, namespace: namespace).creationStatements(for: entity)
    }

    func dropIndex(_ name: String) throws { try session.execute("DROP INDEX \(quoted(namespace)).\(quoted(name))") }

    func setAside(_ table: String) throws {
        let aside = PostgresLayout.shortened(SQLSchemaChangePlan.setAsidePrefix + table)
        try session.execute("ALTER TABLE \(PostgresLayout.qualified(namespace, table)) RENAME TO \(quoted(aside))")
    }

    func dropSetAside(_ table: String) throws {
        try session.execute(
            "DROP TABLE \(PostgresLayout.qualified(namespace, SQLSchemaChangePlan.setAsidePrefix + table))")
    }

    func execute(_ sql: String) throws { try session.execute(sql) }

    func copy(
        from retired: Set<String>, to target: Schema,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws {
        let old = PostgresReadTransaction(
            session: session, layout: PostgresLayout(schema: schema, namespace: namespace, setAside: retired))
        let new = PostgresWriteTransaction(
            session: session, layout: PostgresLayout(schema: target, namespace: namespace), channel: channel,
            inTransaction: true)
        old.flushesFirst = new
        try body(old, new)
        try new.flush()
        transaction = new
    }

    func adopt(_ target: Schema) { schema = target }
}
