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
/// releases its subscription; so does a graceful shutdown of the swift-service-lifecycle service
/// whose task iterates (the sequence then ends, as if the results had no more values), and
/// closing the store (it then throws `StrataError.Code.storeClosed`).
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
        /// The records an ``ObservedLookup`` read with the results (the destinations of a to-one).
        var referenced: [RecordID: Record] = [:]
    }

    /// History entries an incremental catch-up reads at most before it refetches instead.
    static var catchUpLimit: Int { 1024 }

    /// Fetches, subscribes, and brings the results up to date when a delivered commit may change
    /// them (see ``Observer``). The stream keeps only the newest snapshot, so a slow consumer
    /// coalesces.
    static func start(store: Store, plan: Result<FetchPlan, StrataError>, lookup: ObservedLookup? = nil)
        -> AsyncThrowingStream<Snapshot, any Error>
    {
        ObservationStream.start { output, wakes, wake in
            let prepared = try store.executor.prepare(try plan.get(), schema: store.schema)
            try await Observer(store: store, plan: prepared, output: output, lookup: lookup).run(
                wakes: wakes, wake: wake)
        }
    }
}
