import Logging
import NIOCore
import PostgresNIO
import StrataStorage

/// The attach of a PostgreSQL store: what the store's schema holds, read over one short
/// connection, without creating the schema, a table or a lock.
extension PostgresBackend {
    /// The schema description the store at `url` holds, or `nil` when there is none (the
    /// PostgreSQL schema is missing or empty). Tables that are not a Strata store, or another
    /// store format, are typed errors, as at open.
    public static func storedDescription(url: String, options: Options = Options()) async throws -> SchemaDescription? {
        let location = try PostgresLocation(url: url)
        var logger = Logger(label: "strata.postgres")
        logger.logLevel = .error
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: connectionConfiguration(location, options), id: 0, logger: logger)
        } catch {
            throw PostgresErrors.map(error)
        }
        do {
            let description = try await storedDescription(location, over: connection, logger: logger)
            try? await connection.close()
            return description
        } catch {
            try? await connection.close()
            throw (error as? StrataError) ?? PostgresErrors.map(error)
        }
    }

    private static func storedDescription(
        _ location: PostgresLocation, over connection: PostgresConnection, logger: Logger
    ) async throws -> SchemaDescription? {
        var tables: Set<String> = []
        let names = try await connection.query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = \(location.schemaName)", logger: logger)
        for try await name in names.decode(String.self) { tables.insert(name) }
        if tables.isEmpty { return nil }
        guard tables.contains(PostgresLayout.metaTableName) else {
            throw StrataError(
                .notAStore, "\(location) holds tables that are not a Strata store (another application's schema?)")
        }
        let table = quoted(location.schemaName) + "." + quoted(PostgresLayout.metaTableName)
        var meta: [String: [UInt8]] = [:]
        let rows = try await connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT key, value FROM \(table) WHERE key IN ($1, $2)",
                binds: binds([formatKey, SchemaDescription.metadataKey])),
            logger: logger)
        for try await (key, value) in rows.decode((String, ByteBuffer).self) { meta[key] = Array(buffer: value) }
        try checkFormat(meta[formatKey], at: location)
        return try StoredSchema.attached(description: meta[SchemaDescription.metadataKey], path: location.description)
    }

    private static func binds(_ texts: [String]) -> PostgresBindings {
        var bindings = PostgresBindings()
        for text in texts { bindings.append(text) }
        return bindings
    }

    /// Refuses a `strata_meta` without a format version (another application's table) or with
    /// another format than this release's.
    static func checkFormat(_ bytes: [UInt8]?, at location: PostgresLocation) throws {
        guard let format = bytes.map({ String(decoding: $0, as: UTF8.self) }) else {
            throw StrataError(
                .notAStore,
                "\(location) has a strata_meta table but no Strata format version (another application's schema?)")
        }
        guard format == PostgresLayout.formatVersion else {
            throw StrataError(
                .incompatibleStore,
                "\(location) was written in PostgreSQL store format \(format); this version reads "
                    + "\(PostgresLayout.formatVersion)")
        }
    }
}
