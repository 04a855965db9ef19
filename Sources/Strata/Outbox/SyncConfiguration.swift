import Foundation

/// Turns offline-first sync on for a store: every committed local save then appends its mutations
/// to a durable outbox in the same backend transaction as the data.
///
/// ```swift
/// let local = try await Store.open(
///     "sqlite:./app.sqlite", schema: schema, options: OpenOptions(sync: SyncConfiguration(clientID: deviceID)))
/// let engine = try SyncEngine(store: local, remote: remote)  // StrataSync
/// ```
public struct SyncConfiguration: Sendable {
    /// Identifies this client to the server; part of every mutation ID. Keep it stable per store.
    public var clientID: String
    /// The wall clock the hybrid logical clock reads (injectable for tests).
    public var clock: @Sendable () -> Date
    /// Entities that stay on this client: their saves queue nothing, pulls and subscriptions never
    /// touch them, and links to their records are not sent.
    public var localOnly: Set<String>

    /// A configuration for a client.
    public init(clientID: String, clock: @escaping @Sendable () -> Date = { Date() }, localOnly: Set<String> = []) {
        self.clientID = clientID
        self.clock = clock
        self.localOnly = localOnly
    }
}

/// A hybrid logical clock reading: wall-clock milliseconds, a counter for events within one
/// millisecond (or when the wall clock is behind a timestamp already seen), and the node that made
/// it as the last tie-break. Ordered, so "last writer" is well defined across clients.
package struct OutboxTimestamp: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// Milliseconds since 1970 on the writer's clock, never behind the last timestamp it saw.
    package var millis: Int64
    /// Orders timestamps within one millisecond.
    package var counter: UInt32
    /// The writer, which breaks ties.
    package var node: String

    /// A timestamp.
    package init(millis: Int64, counter: UInt32 = 0, node: String) {
        self.millis = millis
        self.counter = counter
        self.node = node
    }

    package static func < (lhs: OutboxTimestamp, rhs: OutboxTimestamp) -> Bool {
        (lhs.millis, lhs.counter, lhs.node) < (rhs.millis, rhs.counter, rhs.node)
    }

    /// The next local timestamp: never behind `last`, never behind the wall clock.
    package static func next(after last: OutboxTimestamp?, now: Date, node: String) -> OutboxTimestamp {
        let wall = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        guard let last, last.millis >= wall else { return OutboxTimestamp(millis: wall, node: node) }
        return OutboxTimestamp(millis: last.millis, counter: last.counter &+ 1, node: node)
    }

    package var description: String { "\(millis).\(counter)@\(node)" }
}
