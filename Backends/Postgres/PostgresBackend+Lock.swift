import PostgresNIO
import StrataStorage
import Synchronization

/// The store's write lock: one writer at a time across every process and machine.
extension PostgresBackend {
    /// Runs `body` on a pool thread with a connection holding the store's advisory lock, one
    /// writer of this handle at a time; the lock is released after `body`, without waiting.
    ///
    /// With `prefetching`, the lock is taken by the store's `strata_write_lock` function, which
    /// then reads those metadata entries in a snapshot taken after the lock (a volatile function's
    /// statements each take their own): a save's counters arrive with the lock, in one round trip.
    ///
    /// A connection found gone at the lock (the server restarted or dropped it in the pool) is
    /// replaced once: nothing was sent but the lock request, so running `body` anew is safe.
    func locked<T: Sendable>(
        prefetching keys: [String]? = nil, _ body: @escaping @Sendable (PostgresSession, [String: [UInt8]?]) throws -> T
    ) async throws -> T {
        do {
            return try await lockedOnce(prefetching: keys, body)
        } catch let failure as LockNotTaken {
            guard failure.error.code == .serverUnavailable, !isClosed.load(ordering: .acquiring) else {
                throw failure.error
            }
            do {
                return try await lockedOnce(prefetching: keys, body)
            } catch let again as LockNotTaken {
                throw again.error
            }
        }
    }

    /// The lock request failed: nothing of the write was sent.
    private struct LockNotTaken: Error {
        let error: StrataError
    }

    private func lockedOnce<T: Sendable>(
        prefetching keys: [String]?, _ body: @escaping @Sendable (PostgresSession, [String: [UInt8]?]) throws -> T
    ) async throws -> T {
        let (logger, roundTrips, lockKey, function) = (logger, roundTrips, lockKey, layout.writeLockFunction)
        return try await writerTurns.run {
            try await self.withSession { connection in
                try await Self.threads.runIfActive {
                    let session = PostgresSession(connection: connection, logger: logger, roundTrips: roundTrips)
                    var key = PostgresBindings()
                    key.append(strata: .int(lockKey))
                    var prefetched: [String: [UInt8]?] = [:]
                    do {
                        if let keys {
                            var binds = key
                            var names = PostgresWireArray(element: .text)
                            for name in keys { names.append(.string(name)) }
                            binds.append(names)
                            var values = Dictionary(uniqueKeysWithValues: keys.map { ($0, [UInt8]?.none) })
                            for row in try session.rows("SELECT key, value FROM \(function)($1, $2::text[])", binds) {
                                let cells = row.makeRandomAccess()
                                if case .string(let name) = try PostgresValues.value(cells[0], as: .string) {
                                    values[name] = .some(try PostgresReadTransaction.bytes(cells[1]))
                                }
                            }
                            prefetched = values
                        } else {
                            try session.execute("SELECT pg_advisory_lock($1)", key)
                        }
                    } catch let error as StrataError {
                        throw LockNotTaken(error: error)
                    }
                    defer { _ = session.send("SELECT pg_advisory_unlock($1)", key) }
                    return try body(session, prefetched)
                }
            }
        }
    }

    /// Runs `body` holding the store's advisory lock (taken with a plain statement).
    func locked<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws -> T) async throws -> T {
        try await locked(prefetching: nil) { session, _ in try body(session) }
    }
}
