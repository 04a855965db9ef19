import CoreMetrics
import Foundation
import Synchronization

/// One delivered value of an observed query: the results, and how they changed since the value
/// delivered before it (all insertions, for the first).
public struct QueryResults<Model: PersistentModel>: Sendable {
    /// The query's results, as a fresh fetch would return them at `token`.
    public let models: [Model]
    /// The change from the previously delivered value.
    public let diff: ResultsDiff
    /// The last commit these results reflect (`nil` before the store's first save).
    public let token: HistoryToken?
}

/// The live results of a query: an `AsyncSequence` that delivers the initial results, then new
/// results after each commit that can change them, each with a ``ResultsDiff`` against the value
/// delivered before it. See ``Store/observe(_:)``.
///
/// A commit that cannot affect the query (another entity, properties the query does not read, a
/// record outside the results) costs no fetch. A consumer slower than the commits gets coalesced
/// values — the latest results, diffed against the last value it received. A failed save
/// delivers nothing. Ending the iteration (or cancelling its task) ends the observation and
/// releases its subscription.
public struct QueryObservation<Model: PersistentModel>: AsyncSequence, Sendable {
    public typealias Element = QueryResults<Model>

    let store: Store
    let plan: Result<FetchPlan, StrataError>

    public func makeAsyncIterator() -> Iterator {
        Iterator(snapshots: Self.start(store: store, plan: plan).makeAsyncIterator())
    }

    /// Delivers the initial results, then new results after each commit that can change them.
    public struct Iterator: AsyncIteratorProtocol {
        var snapshots: AsyncThrowingStream<Snapshot, any Error>.Iterator
        // Only the keys of the value delivered last are kept, not its models: the observation
        // can then change its results in place for the next value rather than copy them.
        var previousKeys: [(id: RecordID, version: Int64)]?
        var previousSequence = 0

        public mutating func next() async throws -> QueryResults<Model>? {
            guard let snapshot = try await snapshots.next() else { return nil }
            // The diff computed with the snapshot holds when this consumer received the one
            // before it; a coalesced consumer missed some, so diff against what it has.
            let diff: ResultsDiff
            if let computed = snapshot.diff, previousKeys != nil, previousSequence == snapshot.sequence - 1 {
                diff = computed
            } else {
                diff = ResultsDiff.between(previousKeys ?? [], snapshot.keys)
            }
            previousKeys = snapshot.keys
            previousSequence = snapshot.sequence
            return QueryResults(models: snapshot.models, diff: diff, token: snapshot.token)
        }
    }

    /// The results at one history position, with each record's ID and version for diffing.
    struct Snapshot: Sendable {
        let keys: [(id: RecordID, version: Int64)]
        let models: [Model]
        let token: HistoryToken?
        /// Counts published snapshots.
        var sequence = 0
        /// The diff from snapshot `sequence - 1`, when the incremental path computed it.
        var diff: ResultsDiff?
    }

    /// What a catch-up read found for the incremental path.
    private enum CatchUp: Sendable {
        case unchanged(HistoryToken?)
        case delta(HistoryToken?, changed: Set<RecordID>, matching: [Record])
        case refetch
    }

    /// History entries an incremental catch-up reads at most before it refetches instead.
    static var catchUpLimit: Int { 1024 }

    /// Fetches, subscribes, and brings the results up to date when a delivered commit may change
    /// them: from the changed records alone for a query over one entity without a window
    /// (`IncrementalResults`), by refetching otherwise. The stream keeps only the newest
    /// snapshot, so a slow consumer coalesces.
    static func start(store: Store, plan: Result<FetchPlan, StrataError>) -> AsyncThrowingStream<Snapshot, any Error> {
        let (snapshots, output) = AsyncThrowingStream<Snapshot, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let task = Task {
            do {
                let plan = try store.executor.prepare(try plan.get(), schema: store.schema)
                let deliveries = store.deliveryCounter("query")
                let dependencies = ObservedDependencies(plan, schema: store.schema)
                let executor = store.executor
                let incremental = IncrementalResults<Model>.applies(to: plan, dependencies)
                @Sendable func fetch() async throws -> (Snapshot, [Record]) {
                    try await store.backend.read { transaction in
                        let token = try HistoryLog.lastToken(in: transaction)
                        let records = try executor.fetch(plan, in: transaction)
                        let models = try KeyPathDecoding.decodeAll(Model.self, records)
                        return (
                            Snapshot(keys: records.map { ($0.id, $0.version) }, models: models, token: token), records
                        )
                    }
                }
                // What the latest value saw: commits up to `token` are in it; later ones are
                // judged against its IDs.
                let seen = ObservedPosition()
                // The keys of the last value published by refetching (the incremental path keeps
                // them in `live`), and the history position of the last value.
                var lastKeys: [(id: RecordID, version: Int64)]?
                var lastToken: HistoryToken?
                var sequence = 0
                var live: IncrementalResults<Model>?
                // The history position `live` reflects.
                var position: HistoryToken?
                func publish(_ snapshot: Snapshot) {
                    seen.withLock { $0 = (snapshot.token?.value ?? 0, Set(snapshot.keys.map(\.id))) }
                    // A commit that could have changed the results but did not (an insert outside
                    // the filter) delivers nothing.
                    if let previous = live?.keys ?? lastKeys,
                        previous.elementsEqual(snapshot.keys, by: { $0.id == $1.id && $0.version == $1.version })
                    {
                        return
                    }
                    var numbered = snapshot
                    sequence += 1
                    numbered.sequence = sequence
                    lastKeys = incremental ? nil : snapshot.keys
                    lastToken = snapshot.token
                    output.yield(numbered)
                    deliveries.increment()
                }
                func refetch() async throws {
                    let (snapshot, records) = try await fetch()
                    position = snapshot.token
                    publish(snapshot)
                    if incremental {
                        live = IncrementalResults(records: records, models: snapshot.models, sort: plan.sort)
                    }
                }
                /// Brings `live` up to date from the records changed since its token.
                func catchUp(count: Int) async throws {
                    let since = position
                    let entity = plan.entity
                    let predicate = plan.predicate
                    let budget = Swift.max(256, count / 4)
                    let found = try await store.backend.read { transaction -> CatchUp in
                        let latest = try HistoryLog.lastToken(in: transaction)
                        guard latest != since else { return .unchanged(latest) }
                        guard let latestValue = latest?.value else { return .refetch }
                        let from = since?.value ?? 0
                        guard latestValue - from <= Int64(Self.catchUpLimit) else { return .refetch }
                        let transactions = try HistoryLog.read(after: since, limit: nil, in: transaction)
                        // Purged history: the changes cannot be known.
                        guard transactions.count == latestValue - from, transactions.first?.token.value == from + 1
                        else { return .refetch }
                        var changed = Set<RecordID>()
                        for committed in transactions {
                            for change in committed.changes where change.entity == entity { changed.insert(change.id) }
                        }
                        guard changed.count <= budget else { return .refetch }
                        let records = try transaction.records(entity, ids: Array(changed))
                        let evaluator = PredicateEvaluator(transaction)
                        let matching = try records.values.filter { record in
                            try predicate.map { try evaluator.matches(record, $0) } ?? true
                        }
                        return .delta(latest, changed: changed, matching: matching)
                    }
                    switch found {
                    case .refetch:
                        try await refetch()
                    case .unchanged(let token):
                        position = token
                        seen.withLock { $0.token = Swift.max($0.token, token?.value ?? 0) }
                    case .delta(let token, let changed, let matching):
                        // Taken out of `live` so the arrays and the index are changed in place, not copied.
                        guard var updated = live else { return }
                        live = nil
                        let diff = try updated.apply(changed: changed, matching: matching)
                        live = updated
                        position = token
                        let present = Set(matching.map { $0.id })
                        seen.withLock { seen in
                            seen.token = token?.value ?? 0
                            for id in changed where !present.contains(id) { seen.ids.remove(id) }
                            seen.ids.formUnion(present)
                        }
                        guard !diff.isEmpty else { return }
                        sequence += 1
                        let snapshot = Snapshot(
                            keys: updated.keys, models: updated.models, token: token, sequence: sequence, diff: diff)
                        lastToken = token
                        output.yield(snapshot)
                        deliveries.increment()
                    }
                }
                try await refetch()
                let subscription = store.hub.subscribe(after: lastToken, for: dependencies, seen: seen, wake: wake)
                defer { store.hub.unsubscribe(subscription) }
                for await _ in wakes {
                    try Task.checkCancellation()
                    if let count = live?.count { try await catchUp(count: count) } else { try await refetch() }
                }
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
        }
        output.onTermination = { _ in
            task.cancel()
            wake.finish()
        }
        return snapshots
    }
}
