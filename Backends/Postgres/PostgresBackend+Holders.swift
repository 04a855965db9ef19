import PostgresNIO
import StrataStorage

/// Who else has a PostgreSQL store open. Every handle keeps one connection open for its whole
/// life, its presence, with the `application_name` `strata:<store>:<process>` (the store a hash of
/// its database and schema, the process a random tag drawn once per process, its machine and its
/// process ID); it opens before the handle does and is closed, and waited for, when the handle
/// closes. So `pg_stat_activity` shows every other process on every machine that has the store
/// open. Handles of this process are not counted, as a POSIX lock of another file backend does not
/// count them; the pool's connections carry no name, so one still being established when its
/// handle closed counts for nobody.
extension PostgresBackend {
    /// The `application_name` prefix shared by every handle onto `location`'s store.
    static func applicationPrefix(_ location: PostgresLocation) -> String {
        "strata:" + PostgresLayout.hash("\(location.database)/\(location.schemaName)") + ":"
    }

    /// This process's tag in its handles' `application_name`: drawn once, at first use, then
    /// the machine and the process ID (``PostgresProcessLiveness``).
    static let processTag =
        String(UInt64.random(in: .min ... .max), radix: 16) + ":" + PostgresProcessLiveness.processSuffix

    /// A session of another process's handle onto this store (on this machine or another),
    /// named by its server process ID and client address. A handle closed a moment ago may still
    /// show while the server ends its session — on a loaded machine for several seconds — so a
    /// holder counts only if it is still there after twelve seconds of asking again. A session of
    /// a process of this machine that no longer exists does not count at all: its process is
    /// gone, whatever the server is still ending. An answer of "nobody" is immediate; only a
    /// refusal waits. (Renaming the session before closing it would answer at once, but a query
    /// on a closing connection can leave the close waiting for good.)
    public func holderElsewhere() async throws -> String? {
        var holder = try await sessionElsewhere()
        for wait in [100, 200, 400, 800, 1_500, 2_000, 3_000, 4_000] where holder != nil {
            try await Task.sleep(for: .milliseconds(wait))
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
                SELECT pid::bigint, coalesce(host(client_addr), 'a local socket'), application_name
                FROM pg_stat_activity
                WHERE datname = current_database() AND application_name LIKE \(pattern) AND application_name <> \(own)
                ORDER BY backend_start
                """, logger: logger)
            for try await (pid, address, name) in rows.decode((Int, String, String).self)
            where !PostgresProcessLiveness.isGone(name) {
                return "another process (PostgreSQL session \(pid) from \(address))"
            }
            return nil
        } catch {
            throw PostgresErrors.map(error)
        }
    }
}
