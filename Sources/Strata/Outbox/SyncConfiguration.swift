import Foundation

/// Turns offline-first sync on for a store: every committed local save then appends its mutations
/// to a durable outbox in the same backend transaction as the data.
///
/// ```swift
/// let local = try await Store.open(
///     "sqlite:./app.sqlite", schema: schema, options: OpenOptions(sync: SyncConfiguration()))
/// let engine = try SyncEngine(store: local, remote: remote)  // StrataSync
/// ```
///
/// **The client ID.** A server binds a client ID to the identity of its first push and answers
/// anyone else using it with 403, so an ID someone else can guess lets them take it first — the
/// real client is then locked out of its own ID. By default (``init(clock:localOnly:)``) the ID is
/// 122 random bits, generated the first time the store is opened with sync and kept in the store,
/// so it is stable for the store's life and no one can guess it. Give one yourself
/// (``init(clientID:clock:localOnly:)``) only when it is as unguessable and as stable.
public struct SyncConfiguration: Sendable {
    /// Identifies this client to the server; part of every mutation ID. Stable per store; empty
    /// until a generated one is made (``Store/open(_:schema:options:)`` makes it).
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

    /// A configuration whose client ID is generated for the store: made when the store is first
    /// opened with it (``Store/open(_:schema:options:)``, ``Store/openStored(_:options:)``) and kept
    /// in the store, so every later open has the same one. For a store already open, use
    /// ``generated(for:clock:localOnly:)`` and `Store.withSync(_:)`.
    public init(clock: @escaping @Sendable () -> Date = { Date() }, localOnly: Set<String> = []) {
        self.init(clientID: "", clock: clock, localOnly: localOnly)
    }

    /// A configuration with the client ID generated for `store` (made now if it has none, and kept).
    public static func generated(
        for store: Store, clock: @escaping @Sendable () -> Date = { Date() }, localOnly: Set<String> = []
    ) async throws -> SyncConfiguration {
        try await SyncConfiguration(clock: clock, localOnly: localOnly).resolved(in: store.backend)
    }

    /// This configuration, with the store's generated client ID when it asks for one.
    package func resolved(in backend: any StorageBackend) async throws -> SyncConfiguration {
        guard clientID.isEmpty else { return self }
        let key = MetadataKeys.syncClientID
        var configuration = self
        if let kept = try await backend.read({ try $0.metadata(key) }) {
            configuration.clientID = String(decoding: kept, as: UTF8.self)
        } else {
            configuration.clientID = try await backend.write { transaction in
                if let kept = try transaction.metadata(key) { return String(decoding: kept, as: UTF8.self) }
                let made = "c-" + UUID().uuidString.lowercased()
                try transaction.setMetadata(key, Array(made.utf8))
                return made
            }
        }
        return configuration
    }

    /// A configuration asking for a generated ID that was never made: a store given one by
    /// `withSync(_:)` instead of ``generated(for:clock:localOnly:)``.
    package static func unresolved(_ what: String) -> StrataError {
        StrataError(
            .unsupportedStore,
            "\(what): the store's sync configuration asks for a generated client ID that was never made; open the "
                + "store with it (Store.open) or pass SyncConfiguration.generated(for:) to withSync")
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
