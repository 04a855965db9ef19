import Foundation
import Logging
import NIOCore
import PostgresNIO
import StrataStorage
import Synchronization

/// One leased connection, used synchronously from a thread of the backend's thread pool (never
/// from Swift's cooperative pool or an event loop): each call sends one statement and blocks
/// this thread until its reply. Every statement sent is one round trip, counted for the
/// round-trip measurements.
final class PostgresSession {
    let connection: PostgresConnection
    let logger: Logger
    let roundTrips: RoundTripCounter
    /// A statement sent just before the next one and checked after it (a read's `BEGIN`), so
    /// the thread waits once for both. Nil once sent.
    var prelude: String?
    private var preludeReply: EventLoopFuture<PostgresQueryResult>?

    static let connectionLost = StrataError(
        .serverUnavailable, "PostgreSQL: the connection to the server was lost; nothing of the operation was committed")

    static let trace = ProcessInfo.processInfo.environment["STRATA_PG_TRACE"] != nil

    init(connection: PostgresConnection, logger: Logger, roundTrips: RoundTripCounter) {
        self.connection = connection
        self.logger = logger
        self.roundTrips = roundTrips
    }

    /// Runs `sql` and returns its rows.
    @discardableResult
    func rows(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> [PostgresRow] {
        let future = sendAfterPrelude(sql, binds)
        do {
            let rows = Array(try wait(for: future))
            try checkPrelude()
            return rows
        } catch {
            try checkPrelude()
            throw PostgresErrors.map(error)
        }
    }

    /// Runs `sql` and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) throws -> Int {
        let future = sendAfterPrelude(sql, binds)
        do {
            let count = try wait(for: future).metadata.rows ?? 0
            try checkPrelude()
            return count
        } catch {
            try checkPrelude()
            throw PostgresErrors.map(error)
        }
    }

    private func sendAfterPrelude(_ sql: String, _ binds: PostgresBindings) -> EventLoopFuture<PostgresQueryResult> {
        if let prelude {
            preludeReply = send(prelude)
            self.prelude = nil
        }
        return send(sql, binds)
    }

    private func checkPrelude() throws {
        guard let reply = preludeReply else { return }
        preludeReply = nil
        do {
            _ = try wait(for: reply)
        } catch {
            throw PostgresErrors.map(error)
        }
    }

    /// Blocks this thread until `reply` arrives or the connection is found closed: postgres-nio
    /// can leave a statement sent just as the server terminates the connection waiting forever.
    /// The connection is looked at while waiting, not through a callback on its close future,
    /// which would keep one closure per statement for as long as a pooled connection lives.
    private func wait(for reply: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        let arrived = DispatchSemaphore(value: 0)
        reply.whenComplete { _ in arrived.signal() }
        while arrived.wait(timeout: .now() + .milliseconds(200)) == .timedOut {
            if connection.isClosed { throw Self.connectionLost }
        }
        return try reply.wait()  // complete by now
    }

    /// Sends `sql` without waiting for its reply: statements on one connection run in order, so
    /// the next statement's reply comes after it.
    func send(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) -> EventLoopFuture<PostgresQueryResult> {
        roundTrips.add()
        if Self.trace { print("PGTRACE", sql.prefix(160)) }
        return connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
    }
}

/// Counts statements sent to the server (each one round trip).
final class RoundTripCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

extension StrataError.Code {
    /// The PostgreSQL server cannot be reached, or the connection to it was lost (refused,
    /// terminated, restarted). Nothing of the failed operation was committed.
    public static let serverUnavailable = StrataError.Code("serverUnavailable")
    /// The PostgreSQL server refused the user name or password.
    public static let authenticationFailed = StrataError.Code("authenticationFailed")
}

/// postgres-nio's errors as typed `StrataError`s. Messages carry the SQLSTATE and the server's
/// own sentence, never the statement or its values (a server message quoting a value is left out).
enum PostgresErrors {
    static func map(_ error: any Error) -> any Error {
        if error is StrataError { return error }
        if error is ChannelError || error is IOError {
            return StrataError(
                .serverUnavailable,
                "PostgreSQL: the connection to the server failed or was lost (\(type(of: error))); nothing of the "
                    + "operation was committed"
            )
        }
        // The caller's own errors (thrown from a transaction's closure) pass through.
        guard let error = error as? PSQLError else { return error }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?????"
            let text = "PostgreSQL error \(state)"
            switch state.prefix(2) {
            case "08", "57":
                return StrataError(
                    .serverUnavailable,
                    "\(text): the connection to the server was lost ("
                        + (state == "57P01"
                            ? "terminated by an administrator"
                            : state == "57P03" ? "the server is starting up or shutting down" : "connection failure")
                        + "); nothing of the operation was committed"
                )
            case "28":
                return StrataError(.authenticationFailed, "\(text): the server refused the user name or password")
            case "3D":
                return StrataError(.notAStore, "\(text): the database does not exist")
            case "23":
                return StrataError(.uniqueViolation, "\(text): a constraint of the store's tables refused the write")
            case "40":
                return StrataError(
                    .mergeConflict,
                    "\(text): the transaction was rolled back by the server (serialization failure or deadlock)")
            case "42":
                return StrataError(
                    .corruptStore,
                    "\(text): the store's tables are not what this schema expects (changed outside Strata?)")
            case "53" where state == "53100":
                return StrataError(
                    .diskFull, "\(text): the server's disk is full; nothing of the operation was committed")
            case "53":
                return StrataError(
                    .storageFailure, "\(text): the server is out of a resource (disk, memory or connections)")
            default:
                return StrataError(.storageFailure, "\(text)")
            }
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return StrataError(
                .serverUnavailable,
                "PostgreSQL: the connection to the server failed or was lost (\(error.code)); nothing of the "
                    + "operation was committed"
            )
        case .authMechanismRequiresPassword, .unsupportedAuthMechanism, .saslError:
            return StrataError(.authenticationFailed, "PostgreSQL: authentication failed (\(error.code))")
        default:
            return StrataError(.storageFailure, "PostgreSQL: \(error.code)")
        }
    }
}
