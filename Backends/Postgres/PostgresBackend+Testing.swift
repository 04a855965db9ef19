import PostgresNIO
import StrataStorage

/// Hooks for the backend's own tests (`@testable import`): a server-side view no public API needs.
extension PostgresBackend {
    /// Terminates every other session holding this store's advisory lock (a writer mid-save).
    func terminateLockHolders() async throws -> Int {
        let key = UInt64(bitPattern: lockKey)
        let sql = """
            SELECT count(pg_terminate_backend(pid))::bigint FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
              AND classid = \(key >> 32) AND objid = \(key & 0xFFFF_FFFF) AND objsubid = 1
            """
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// Runs one statement with no values.
    func executeForTesting(_ sql: String) async throws {
        try await client.query(PostgresQuery(unsafeSQL: sql), logger: logger)
    }

    /// The tables in PostgreSQL schema `namespace`, sorted.
    func tableNamesForTesting(in namespace: String) async throws -> [String] {
        let rows = try await client.query(
            "SELECT tablename::text FROM pg_tables WHERE schemaname = \(namespace) ORDER BY 1", logger: logger)
        var names: [String] = []
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }
}

extension PostgresBackend {
    /// How many sessions are named for `location`'s store by this process's handles (open ones
    /// and ones the server has not yet ended), as another process's ``holderElsewhere()`` sees them.
    func presenceCountForTesting(of location: PostgresLocation) async throws -> Int {
        let name = Self.applicationPrefix(location) + Self.processTag
        let rows = try await client.query(
            "SELECT count(*)::bigint FROM pg_stat_activity WHERE application_name = \(name)", logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }
}

extension PostgresBackend {
    /// The plan PostgreSQL chooses for the statement this backend runs for `plan`, one line per step.
    func queryPlanForTesting(_ plan: FetchPlan) async throws -> [String] {
        var query = PostgresFetchSQL(layout: layout)
        let sql = try query.select(plan)
        let rows = try await client.query(
            PostgresQuery(unsafeSQL: "EXPLAIN " + sql, binds: query.binds), logger: logger)
        var steps: [String] = []
        for try await step in rows.decode(String.self) { steps.append(step) }
        return steps
    }

    /// The qualified, quoted table of `entity`.
    func tableNameForTesting(_ entity: String) throws -> String { try layout.table(entity).name }
}
