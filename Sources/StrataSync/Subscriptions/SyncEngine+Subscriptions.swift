import Foundation
import Strata

/// A subscription as the client holds it: when it ends, and whether its records have arrived.
public struct SyncSubscriptionState: Sendable, Hashable {
    /// The subscription.
    public var subscription: SyncSubscription
    /// When its time to live runs out (`nil`: never).
    public var expires: Date?
    /// Whether the records it covers have arrived (its initial sync finished).
    public var isReady: Bool
}

/// Client subscriptions: choosing what the server sends, and evicting what no subscription covers
/// any longer — locally, without queuing deletes.
extension SyncEngine {
    /// The client's subscriptions, in the order they were made; `nil` while the client syncs
    /// everything its identity may read (it has never subscribed, or called ``syncEverything()``).
    public func subscriptions() async throws -> [SyncSubscriptionState]? {
        let book = try await store.backend.read { try SubscriptionBook.read($0) }
        return book.map { book in
            book.entries.map {
                SyncSubscriptionState(subscription: $0.subscription, expires: $0.expires, isReady: $0.ready)
            }
        }
    }

    /// Adds a subscription, or replaces the one of the same name. The next sync brings the records
    /// it newly covers (page by page, resumed after a crash or a lost connection); a replaced
    /// subscription's records that nothing covers now leave the store at once. Subscribing again
    /// to the same query only renews its time to live.
    ///
    /// The first subscription of a client that synced everything leaves in the store only what
    /// the subscription covers (and records with unsent changes). A subscription naming an unknown
    /// entity or relationship, or a malformed filter, is `StrataError.Code.invalidQuery`.
    public func subscribe(_ subscription: SyncSubscription) async throws {
        _ = try SubscriptionCoverage([subscription], schema: store.schema)
        await beginRun()
        defer { endRun() }
        try await changeSubscriptions { book, now in
            let expires = subscription.timeToLive.map { now.addingTimeInterval(Self.seconds($0)) }
            if let index = book.entries.firstIndex(where: { $0.subscription.name == subscription.name }) {
                if book.entries[index].subscription.covers(sameAs: subscription) {
                    book.entries[index].subscription = subscription
                    book.entries[index].expires = expires
                    return
                }
                book.entries.remove(at: index)
                book.forget(subscription.name)
            }
            book.entries.append(.init(subscription: subscription, expires: expires, ready: false))
            book.bootstraps.append(.init(subscriptions: [subscription.served]))
        }
    }

    /// Removes a subscription: the records no other subscription covers leave the store now,
    /// without queuing deletes (the server keeps them). Records with unsent changes stay until a
    /// later change of subscriptions finds them sent. Removing a name not subscribed does nothing
    /// (a client that syncs everything goes on doing so); removing the last subscription leaves the
    /// client subscribed to nothing.
    public func unsubscribe(_ name: String) async throws {
        await beginRun()
        defer { endRun() }
        let book = try await store.backend.read { try SubscriptionBook.read($0) }
        guard let book, book.entries.contains(where: { $0.subscription.name == name }) else { return }
        try await changeSubscriptions { book, _ in
            book.entries.removeAll { $0.subscription.name == name }
            book.forget(name)
        }
    }

    /// Goes back to syncing everything the identity may read: forgets the subscriptions, and the
    /// next sync resets from a snapshot of the whole readable state.
    public func syncEverything() async throws {
        await beginRun()
        defer { endRun() }
        try await store.writeMetadata { transaction in
            guard try SubscriptionBook.read(transaction) != nil else { return }
            try transaction.setMetadata(SubscriptionBook.key, nil)
            try ResetState(position: nil, cursor: nil).write(transaction)
        }
    }

    /// Removes the subscriptions whose time to live ran out (called before each pull).
    func expireSubscriptions() async throws {
        let now = configuration.clock()
        let book = try await store.backend.read { try SubscriptionBook.read($0) }
        guard let book, book.entries.contains(where: { $0.expires.map { $0 <= now } ?? false }) else { return }
        try await changeSubscriptions { book, now in
            let expired = book.entries.filter { $0.expires.map { $0 <= now } ?? false }.map(\.subscription.name)
            book.entries.removeAll { expired.contains($0.subscription.name) }
            for name in expired { book.forget(name) }
        }
    }

    /// Evicts what the subscriptions no longer cover of `entities` (after a pull moved records a
    /// relationship-following subscription depends on).
    func evictUncovered(_ entities: Set<String>) async throws {
        try await changeSubscriptions(only: entities) { _, _ in }
    }

    /// Evicts the records a subscription reached only through records that have left or changed
    /// (``SubscriptionCoverage/dependent``: a trip's stops, followed from the trip): a pull that
    /// moved something, or a push answered with the server's state (a refused budget puts the
    /// server's trip back, out of the subscription, and its stops were covered only through it).
    /// Returns whether the client holds subscriptions at all.
    @discardableResult
    func evictDependents() async throws -> Bool {
        guard let book = try await store.backend.read({ try SubscriptionBook.read($0) }) else { return false }
        let dependent = try SubscriptionCoverage(book.active, schema: store.schema).dependent
        if !dependent.isEmpty { try await evictUncovered(dependent) }
        return true
    }

    /// Evicts the records ``CoverageRecheck`` holds (records this client wrote, whose mutations the
    /// server has answered; records a refresh read) that no subscription covers and that have no
    /// mutations left in the outbox, and forgets them: once the server holds a write, a record
    /// outside the client's subscriptions leaves the store as it would have had someone else
    /// written it (PowerSync's rule for uploads of rows outside the synced buckets), instead of
    /// staying as the client left it, never updated. Noted in the save that applies the answer, so
    /// a crash before this runs leaves them for the next sync.
    /// Returns whether it evicted any.
    @discardableResult
    func evictUncovered() async throws -> Bool {
        let noted = try await store.backend.read { try CoverageRecheck.noted.read($0) }
        guard !noted.isEmpty else { return false }
        let (configuration, executor, schema) = (configuration, store.executor, store.schema)
        var among: [String: [RecordID]] = [:]
        for key in noted where !configuration.localOnly.contains(key.entity) {
            among[key.entity, default: []].append(key.id)
        }
        let chosen = among
        return try await store.commit(
            author: nil, contextName: "sync", participants: [],
            stage: { session, reader -> SyncApplier? in
                guard let book = try SubscriptionBook.read(reader) else { return nil }
                var applier = SyncApplier(session: session, configuration: configuration)
                try Self.stageEviction(
                    chosen.keys.sorted(), keeping: try SubscriptionCoverage(book.active, schema: schema), among: chosen,
                    in: reader, executor: executor, into: &applier)
                return applier
            },
            afterCommit: { applier, _, transaction -> Bool in
                try applier?.finish(in: transaction)
                try CoverageRecheck.noted.forget(Set(noted), in: transaction)
                return (applier?.evicted ?? 0) > 0
            })
    }

    /// Edits the stored subscriptions and, in the same local save, evicts every record the edited
    /// set does not cover (of `only` entities, or all) — no outbox entries, no server round trip.
    func changeSubscriptions(
        only: Set<String>? = nil, _ edit: @escaping @Sendable (inout SubscriptionBook, Date) -> Void
    ) async throws {
        let (configuration, executor, schema) = (configuration, store.executor, store.schema)
        let now = configuration.clock()
        try await store.commit(
            author: nil, contextName: "sync", participants: [],
            stage: { session, reader -> (SyncApplier, SubscriptionBook)? in
                let before = try SubscriptionBook.read(reader)
                var book = before ?? SubscriptionBook()
                edit(&book, now)
                if book == before, only == nil { return nil }
                var applier = SyncApplier(session: session, configuration: configuration)
                let coverage = try SubscriptionCoverage(book.active, schema: schema)
                // Records followed from a subscription no longer held are not owed.
                book.bootstraps.removeAll { bootstrap in
                    bootstrap.subscriptions.allSatisfy { $0.isFollowUp && coverage.followed[$0.entity] == nil }
                }
                let entities = only.map { Array($0).sorted() } ?? schema.entities.map(\.name)
                try Self.stageEviction(
                    entities.filter { !configuration.localOnly.contains($0) }, keeping: coverage, in: reader,
                    executor: executor, into: &applier)
                return (applier, book)
            },
            afterCommit: { staged, _, transaction in
                guard let (applier, book) = staged else { return }
                try applier.finish(in: transaction)
                try book.write(transaction)
            })
    }

    /// Stages the local removal of the records of `entities` that `coverage` does not cover (only
    /// among the IDs `among` names for an entity, when it is given), except those with mutations
    /// waiting in the outbox.
    static func stageEviction(
        _ entities: [String], keeping coverage: SubscriptionCoverage, among: [String: [RecordID]]? = nil,
        in reader: any StorageReadTransaction, executor: QueryExecutor, into applier: inout SyncApplier
    ) throws {
        let pending = try pendingMutations(in: reader)
        for entity in entities {
            let covered = coverage.filters[entity]
            if covered == .constant(true) { continue }
            var parts = covered.map { [FilterExpression.not($0)] } ?? []
            if let among {
                guard let ids = among[entity], !ids.isEmpty else { continue }
                parts.append(.inList("id", ids.map(\.value), []))
            }
            let plan = FetchPlan(
                entity: entity, predicate: parts.isEmpty ? nil : parts.count == 1 ? parts[0] : .and(parts))
            for record in try executor.fetch(plan, in: reader) where pending[record.key] == nil {
                try applier.evict(record.key)
            }
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension SubscriptionBook {
    /// Drops the initial syncs still owed for a subscription no longer held.
    mutating func forget(_ name: String) {
        for index in bootstraps.indices.reversed() {
            bootstraps[index].subscriptions.removeAll { $0.name == name || $0.name.hasPrefix(name + "#") }
            if bootstraps[index].subscriptions.isEmpty { bootstraps.remove(at: index) }
        }
    }
}
