import Logging
import PostgresNIO
import StrataStorage

/// Creating a store, and checking the one found, under the store's advisory lock so two
/// processes opening at once see one creation.
extension PostgresBackend {
    static let formatKey = MetadataKeys.postgresFormat
    static let fingerprintKey = MetadataKeys.schemaFingerprint

    func prepareStore() async throws {
        let (layout, schema, location, create) = (layout, schema, location, options.createIfMissing)
        try await locked { session in
            var namespace = PostgresBindings()
            namespace.append(strata: .string(location.schemaName))
            let tables = try session.rows("SELECT tablename::text FROM pg_tables WHERE schemaname = $1", namespace).map
            { row -> String in
                guard case .string(let name) = try PostgresValues.value(row.makeRandomAccess()[0], as: .string) else {
                    return ""
                }
                return name
            }
            if tables.isEmpty {
                guard create else { throw StrataError(.notAStore, "there is no store at \(location)") }
                try Self.transaction(session) {
                    try Self.runDDL(
                        ["CREATE SCHEMA IF NOT EXISTS \(quoted(location.schemaName))"] + layout.creationStatements(),
                        in: session)
                    try Self.recordSchema(schema, layout: layout, in: session, format: true)
                }
                return
            }
            guard tables.contains(PostgresLayout.metaTableName) else {
                throw StrataError(
                    .notAStore, "\(location) holds tables that are not a Strata store (another application's schema?)")
            }
            var keys = PostgresBindings()
            var names = PostgresWireArray(element: .text)
            for key in [Self.formatKey, SchemaDescription.metadataKey] {
                names.append(.string(key))
            }
            keys.append(names)
            var meta: [String: [UInt8]] = [:]
            for row in try session.rows("SELECT key, value FROM \(layout.metaTable) WHERE key = ANY($1::text[])", keys)
            {
                let cells = row.makeRandomAccess()
                guard case .string(let key) = try PostgresValues.value(cells[0], as: .string) else { continue }
                meta[key] = try PostgresReadTransaction.bytes(cells[1])
            }
            try Self.checkFormat(meta[Self.formatKey], at: location)
            try StoredSchema.check(
                description: meta[SchemaDescription.metadataKey], schema: schema, path: location.description)
        }
    }

    /// Runs DDL statements (no values in them: identifiers from the schema, quoted) in one round
    /// trip, as one anonymous code block.
    static func runDDL(_ statements: [String], in session: PostgresSession) throws {
        let body = statements.map { $0 + ";" }.joined(separator: "\n")
        guard !body.contains("$strata_ddl$") else {
            for statement in statements { try session.execute(statement) }
            return
        }
        try session.execute("DO $strata_ddl$ BEGIN\n\(body)\nEND $strata_ddl$")
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, rolling back when it throws.
    static func transaction<T>(_ session: PostgresSession, _ body: () throws -> T) throws -> T {
        try session.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        do {
            let result = try body()
            try session.execute("COMMIT")
            return result
        } catch {
            _ = try? session.execute("ROLLBACK")
            throw error
        }
    }

    /// Records the schema the store has (and, at creation, the format).
    static func recordSchema(_ schema: Schema, layout: PostgresLayout, in session: PostgresSession, format: Bool) throws
    {
        var keys = PostgresWireArray(element: .text)
        var values = PostgresWireArray(element: .bytea)
        var entries: [(String, [UInt8])] = [
            (fingerprintKey, Array(schema.fingerprint.utf8)),
            (SchemaDescription.metadataKey, SchemaDescription(schema).encoded()),
        ]
        if format { entries.append((formatKey, Array(PostgresLayout.formatVersion.utf8))) }
        for (key, value) in entries {
            keys.append(.string(key))
            values.append(.data(.init(value)))
        }
        var binds = PostgresBindings()
        binds.append(keys)
        binds.append(values)
        try session.execute(
            "INSERT INTO \(layout.metaTable) (key, value) SELECT * FROM unnest($1::text[], $2::bytea[]) ON "
                + "CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            binds)
    }
}

extension PostgresBackend {
    /// Removes the store at `url` — its whole PostgreSQL schema, with every table in it — as
    /// deleting its file removes an embedded store. Close every handle onto it first.
    public static func destroy(url: String) async throws {
        let location = try PostgresLocation(url: url)
        let logger = Logger(label: "strata.postgres")
        do {
            let connection = try await PostgresConnection.connect(
                configuration: connectionConfiguration(location, Options()), id: 0, logger: logger)
            do {
                try await connection.query(
                    PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(quoted(location.schemaName)) CASCADE"),
                    logger: logger)
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        } catch {
            throw PostgresErrors.map(error)
        }
    }
}
