import CoreMetrics
import Foundation
import ServiceLifecycle
import Synchronization

/// The store's observation API: live queries, one record, and the per-commit change stream.
extension Store {
    /// The live results of `query`: the initial results, then the new results after each commit
    /// that can change them, with a diff keyed by ID (see ``QueryObservation``).
    ///
    /// ```swift
    /// for try await results in store.observe(Query<Trip>.where(\.budget > 100).sorted(by: \.start)) {
    ///     render(results.models, removing: results.diff.removed, inserting: results.diff.inserted)
    /// }
    /// ```
    public func observe<Model: PersistentModel>(_ query: Query<Model>) -> QueryObservation<Model> {
        QueryObservation(
            store: self,
            plan: Result { try query.plan() }.mapError { $0 as? StrataError ?? StrataError(.invalidQuery, "\($0)") })
    }

    /// One record as it changes: the model (nil while it does not exist) initially and after each
    /// commit that inserts, changes or deletes it.
    public func observe<Model: PersistentModel>(_ type: Model.Type, id: Model.ID) -> AsyncThrowingMapSequence<
        QueryObservation<Model>, Model?
    > {
        let plan = FetchPlan(entity: Model.entityName, predicate: .compare("id", .equal, id.recordID.value, []))
        return QueryObservation<Model>(store: self, plan: .success(plan)).map { $0.models.first }
    }

    /// Each commit's change set once, in token order, from now on: history transactions reduced
    /// to the changes of `entities` (all when nil); a commit touching none of them is skipped.
    /// The stream ends with an error when history it had not read yet was purged
    /// (`StrataError.Code.notFound`) or cannot be read, and ends (without one) on a graceful
    /// shutdown of the swift-service-lifecycle service whose task made it.
    public func changes(entities: Set<String>? = nil) -> AsyncThrowingStream<HistoryTransaction, any Error> {
        let (stream, output) = AsyncThrowingStream<HistoryTransaction, any Error>.makeStream()
        let subscription = Mutex<UUID?>(nil)
        let hub = hub
        let deliveries = deliveryCounter("changes")
        let task = Task {
            do {
                let start = try await currentHistoryToken()
                let id = hub.subscribe(after: start, entities: entities) { event in
                    var transaction: HistoryTransaction
                    switch event {
                    case .committed(let committed):
                        transaction = committed
                    case .gap(let through):
                        output.finish(
                            throwing: StrataError(
                                .notFound,
                                "history through token \(through.value) was purged before this stream read it"))
                        return
                    case .failed(let error):
                        output.finish(throwing: error)
                        return
                    }
                    if let entities {
                        transaction.changes = transaction.changes.filter { entities.contains($0.entity) }
                        if transaction.changes.isEmpty { return }
                    }
                    output.yield(transaction)
                    deliveries.increment()
                }
                let cancelled = subscription.withLock { current -> Bool in
                    current = id
                    return Task.isCancelled
                }
                if cancelled { hub.unsubscribe(id) }
                // Inside a ServiceGroup, graceful shutdown of the consuming service ends the stream;
                // elsewhere this waits until the stream ends and cancels it.
                try await gracefulShutdown()
                output.finish()
            } catch is CancellationError {
                return
            } catch {
                output.finish(throwing: error)
            }
        }
        output.onTermination = { _ in
            task.cancel()
            if let id = subscription.withLock({ $0 }) { hub.unsubscribe(id) }
        }
        return stream
    }

    /// How many observations of this store's backend are live (for tests and diagnostics).
    public var observerCount: Int { hub.observerCount }
}

extension Store {
    /// `strata_observation_deliveries_total` for one kind of observation (`query`, `changes`).
    func deliveryCounter(_ kind: String) -> Counter {
        instrumentation.counter("strata_observation_deliveries_total", store: metricsName, [("kind", kind)])
    }
}
