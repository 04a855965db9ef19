import PostgresNIO
import Strata

/// Who else has a PostgreSQL store open. Every connection of a handle carries the
/// `application_name` `strata:<store>:<handle>` (the store a hash of its database and schema, the
/// handle a random tag), and a handle keeps at least one connection open for its whole life, so
/// `pg_stat_activity` shows every process on every machine that has the store open.
extension PostgresBackend {
    /// The `application_name` prefix shared by every handle onto `location`'s store.
    static func applicationPrefix(_ location: PostgresLocation) -> String {
        "strata:" + PostgresLayout.hash("\(location.database)/\(location.schemaName)") + ":"
    }

    /// A session of another handle onto this store (in another process, or on another machine),
    /// named by its server process ID and client address. A handle closed a moment ago may still
    /// show while the server ends its sessions, so a holder counts only if it is still there after
    /// a second of asking again.
    public func holderElsewhere() async throws -> String? {
        var holder = try await sessionElsewhere()
        for _ in 0..<5 where holder != nil {
            try await Task.sleep(for: .milliseconds(200))
            holder = try await sessionElsewhere()
        }
        return holder
    }

    private func sessionElsewhere() async throws -> String? {
        let (prefix, own) = (Self.applicationPrefix(location), applicationName)
        let pattern = prefix + "%"  // hex digits and colons: nothing LIKE treats specially
        do {
            let rows = try await client.query(
                """
                SELECT pid::bigint, coalesce(host(client_addr), 'a local socket') FROM pg_stat_activity
                WHERE datname = current_database() AND application_name LIKE \(pattern) AND application_name <> \(own)
                ORDER BY backend_start LIMIT 1
                """, logger: logger)
            for try await (pid, address) in rows.decode((Int, String).self) {
                return "another process (PostgreSQL session \(pid) from \(address))"
            }
            return nil
        } catch {
            throw PostgresErrors.map(error)
        }
    }
}
