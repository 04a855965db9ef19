import Foundation
import Synchronization

/// The live results of a query as one ``ModelContext`` sees them: its pending inserts, updates
/// and deletes laid over the store. A new value follows every change staged in the context and
/// every commit that can change the results (saves through this context included). See
/// ``ModelContext/observe(_:)``.
///
/// Each value is a fresh read through the context, diffed by record ID against the value the
/// consumer received before: a record counts as modified when what the context shows of it
/// changed, pending or committed. A consumer slower than the changes gets coalesced values.
public struct ContextObservation<Model: PersistentModel>: AsyncSequence, Sendable {
    public typealias Element = QueryResults<Model>

    let context: ModelContext
    let plan: Result<FetchPlan, StrataError>

    public func makeAsyncIterator() -> Iterator {
        Iterator(snapshots: Self.start(context: context, plan: plan).makeAsyncIterator())
    }

    /// Delivers the results as the context sees them after each change.
    public struct Iterator: AsyncIteratorProtocol {
        var snapshots: AsyncThrowingStream<QueryObservation<Model>.Snapshot, any Error>.Iterator
        var previous: QueryObservation<Model>.Snapshot?

        public mutating func next() async throws -> QueryResults<Model>? {
            guard let snapshot = try await snapshots.next() else { return nil }
            let diff = ResultsDiff.between(previous?.keys ?? [], snapshot.keys)
            previous = snapshot
            return QueryResults(models: snapshot.models, diff: diff, token: snapshot.token)
        }
    }

    static func start(context: ModelContext, plan: Result<FetchPlan, StrataError>, lookup: ObservedLookup? = nil)
        -> AsyncThrowingStream<QueryObservation<Model>.Snapshot, any Error>
    {
        typealias Snapshot = QueryObservation<Model>.Snapshot
        let (snapshots, output) = AsyncThrowingStream<Snapshot, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let store = context.store
        let signal = UUID()
        let task = Task {
            do {
                let plan = try store.executor.prepare(try plan.get(), schema: store.schema)
                let dependencies = ObservedDependencies(plan, schema: store.schema).including(lookup)
                // What the context showed of each record, and a counter bumped when it changes:
                // pending changes keep the stored version, so the counter stands in for it.
                var shown: [RecordID: (record: Record, revision: Int64)] = [:]
                let seen = ObservedPosition()
                var last: [(id: RecordID, version: Int64)]?
                var lastReferenced: [RecordID: Record]?
                func publish() async throws {
                    let (records, models, token, referenced) = try await context.observedFetch(
                        Model.self, plan, lookup: lookup)
                    var next: [RecordID: (record: Record, revision: Int64)] = [:]
                    var keys: [(id: RecordID, version: Int64)] = []
                    keys.reserveCapacity(records.count)
                    for record in records {
                        var revision: Int64 = 0
                        if let before = shown[record.id] {
                            revision =
                                before.record == record && before.record.version == record.version
                                ? before.revision : before.revision + 1
                        }
                        next[record.id] = (record, revision)
                        keys.append((record.id, revision))
                    }
                    shown = next
                    seen.withLock { $0 = (token?.value ?? 0, Set(records.map(\.id))) }
                    if let last, last.elementsEqual(keys, by: { $0.id == $1.id && $0.version == $1.version }),
                        lookup == nil || ObservedLookup.same(lastReferenced, referenced)
                    {
                        return
                    }
                    (last, lastReferenced) = (keys, referenced)
                    output.yield(Snapshot(keys: keys, models: models, token: token, referenced: referenced))
                }
                await context.addChangeSignal(signal, wake)
                try await publish()
                let subscription = store.hub.subscribe(
                    after: seen.withLock { $0.token == 0 ? nil : HistoryToken($0.token) }, for: dependencies,
                    seen: seen, wake: wake)
                defer { store.hub.unsubscribe(subscription) }
                for await _ in wakes {
                    try Task.checkCancellation()
                    try await publish()
                }
                await context.removeChangeSignal(signal)
                output.finish()
            } catch {
                await context.removeChangeSignal(signal)
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

extension ModelContext {
    /// The live results of `query` as this context sees them, its pending changes included: a new
    /// value after every change staged here and every commit that can change the results (see
    /// ``ContextObservation``).
    ///
    /// ```swift
    /// for try await results in context.observe(Query<Trip>.all.sorted(by: \.start)) {
    ///     render(results.models)   // unsaved edits show at once
    /// }
    /// ```
    public nonisolated func observe<Model: PersistentModel>(_ query: Query<Model>) -> ContextObservation<Model> {
        ContextObservation(
            context: self,
            plan: Result { try query.plan() }.mapError { $0 as? StrataError ?? StrataError(.invalidQuery, "\($0)") })
    }

    /// One read for an observation: the records (pending changes applied), their models, the
    /// history position the read caught up with, and what `lookup` read in the same view.
    func observedFetch<M: PersistentModel>(_ type: M.Type, _ plan: FetchPlan, lookup: ObservedLookup?) async throws
        -> (records: [Record], models: [M], token: HistoryToken?, referenced: [RecordID: Record])
    {
        let (records, referenced) = try await readOverlaid { view, executor in
            let records = try executor.fetch(plan, in: view)
            return (records, try lookup?.read(records, view) ?? [:])
        }
        for record in records { tracker.register(record) }
        let shown = records.map { tracker[$0.key]?.current ?? $0 }
        return (shown, try KeyPathDecoding.decodeAll(M.self, shown), lastSeenToken, referenced)
    }
}
