import PostgresNIO
import StrataStorage

/// Migrations on PostgreSQL: the whole plan in one transaction (PostgreSQL's DDL is
/// transactional), under the store's advisory lock, so a failure, a lost connection or a killed
/// process leaves the store as it was, and no other process writes meanwhile.
///
/// Per stage, each entity being rebuilt has its indexes dropped and its table (and the link
/// tables it owns) renamed aside under `strata_migrating.`; the new tables are created with their
/// indexes; the engine copies through the two views; the set-aside tables are dropped.
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

    private func indexes(of table: String) throws -> [String] {
        var binds = PostgresBindings()
        binds.append(strata: .string(namespace))
        binds.append(strata: .string(table))
        return try session.rows(
            "SELECT indexname::text FROM pg_indexes WHERE schemaname = $1 AND tablename = $2 AND indexname LIKE "
                + "'strata\\_%'",
            binds
        ).compactMap { row in
            if case .string(let name) = try PostgresValues.value(row.makeRandomAccess()[0], as: .string) { return name }
            return nil
        }
    }

    func change(
        to target: Schema, rebuilding retired: Set<String>, creating created: Set<String>,
        reindexing reindexed: Set<String>,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws {
        try transaction.flush()
        let present = PostgresLayout(schema: schema, namespace: namespace)
        var setAside: [String] = []
        for name in retired.sorted() {
            var tables = [name]
            for (entity, relationship) in present.linkRelationships where entity.name == name {
                tables.append("\(entity.name).\(relationship.name)")
            }
            for table in tables {
                // Index names are per schema: the new tables' indexes take the same ones.
                for index in try indexes(of: PostgresLayout.shortened(table)) {
                    try session.execute("DROP INDEX \(quoted(namespace)).\(quoted(index))")
                }
                let aside = PostgresLayout.shortened(PostgresLayout.setAsidePrefix + table)
                try session.execute(
                    "ALTER TABLE \(PostgresLayout.qualified(namespace, table)) RENAME TO \(quoted(aside))")
                setAside.append(PostgresLayout.qualified(namespace, PostgresLayout.setAsidePrefix + table))
            }
        }
        let layout = PostgresLayout(schema: target, namespace: namespace)
        for name in created.sorted() {
            for statement in layout.creationStatements(for: name) { try session.execute(statement) }
        }
        for name in reindexed.sorted() {
            // Index names hash their definition: one both schemas declare alike is kept.
            guard let entity = target.entity(name) else { continue }
            let wanted = Dictionary(
                layout.indexStatements(entity).map { ($0.name, $0.sql) }, uniquingKeysWith: { a, _ in a })
            let existing = Set(try indexes(of: PostgresLayout.shortened(name)).filter { $0.hasPrefix("strata_i_") })
            for index in existing where wanted[index] == nil {
                try session.execute("DROP INDEX \(quoted(namespace)).\(quoted(index))")
            }
            for (index, sql) in wanted.sorted(by: { $0.key < $1.key }) where !existing.contains(index) {
                try session.execute(sql)
            }
        }
        let old = PostgresReadTransaction(
            session: session, layout: PostgresLayout(schema: schema, namespace: namespace, setAside: retired))
        let new = PostgresWriteTransaction(session: session, layout: layout, channel: channel, inTransaction: true)
        old.flushesFirst = new
        try body(old, new)
        try new.flush()
        for table in setAside { try session.execute("DROP TABLE \(table)") }
        schema = target
        transaction = new
    }
}
