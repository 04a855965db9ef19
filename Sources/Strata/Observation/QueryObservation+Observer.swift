import CoreMetrics

extension QueryObservation {
    /// What a catch-up read found for the incremental path.
    enum CatchUp: Sendable {
        case unchanged(HistoryToken?)
        case delta(HistoryToken?, changed: Set<RecordID>, matching: [Record])
        case refetch
    }

    /// One live query's state and its steps: the first fetch, then after each wake either a
    /// **refetch**, or — for a query over one entity without a window (`IncrementalResults`) — a
    /// **catch-up** from the records changed since the last position; each **publishes** a value
    /// only when the results differ. Owned by its observation's task alone.
    final class Observer {
        let store: Store
        let plan: FetchPlan
        let output: AsyncThrowingStream<Snapshot, any Error>.Continuation
        let deliveries: Counter
        let dependencies: ObservedDependencies
        let incremental: Bool
        /// What the values read besides the results, and what the last value read of it.
        let lookup: ObservedLookup?
        private var lastReferenced: [RecordID: Record]?
        /// What the latest value saw: commits up to its token are in it; later ones are judged
        /// against its IDs.
        let seen = ObservedPosition()
        /// The keys of the last value published by refetching (the incremental path keeps them in
        /// `live`), and the history position of the last value.
        private var lastKeys: [(id: RecordID, version: Int64)]?
        private(set) var lastToken: HistoryToken?
        private var sequence = 0
        private var live: IncrementalResults<Model>?
        /// The history position `live` reflects.
        private var position: HistoryToken?

        init(
            store: Store, plan: FetchPlan, output: AsyncThrowingStream<Snapshot, any Error>.Continuation,
            lookup: ObservedLookup? = nil
        ) {
            self.store = store
            self.plan = plan
            self.output = output
            self.lookup = lookup
            deliveries = store.deliveryCounter("query")
            dependencies = ObservedDependencies(plan, schema: store.schema).including(lookup)
            incremental = IncrementalResults<Model>.applies(to: plan, dependencies)
        }

        /// The first value, then one step per wake until the wakes end or the task is cancelled.
        func run(wakes: AsyncStream<Void>, wake: AsyncStream<Void>.Continuation) async throws {
            try await refetch()
            let subscription = store.hub.subscribe(after: lastToken, for: dependencies, seen: seen, wake: wake)
            defer { store.hub.unsubscribe(subscription) }
            for await _ in wakes {
                try Task.checkCancellation()
                if let count = live?.count { try await catchUp(count: count) } else { try await refetch() }
            }
        }

        private func fetch() async throws -> (Snapshot, [Record]) {
            let (plan, executor, lookup) = (plan, store.executor, lookup)
            return try await store.backend.read { transaction in
                let token = try HistoryLog.lastToken(in: transaction)
                let records = try executor.fetch(plan, in: transaction)
                let models = try KeyPathDecoding.decodeAll(Model.self, records)
                let referenced = try lookup?.read(records, transaction) ?? [:]
                let keys = records.map { ($0.id, $0.version) }
                return (Snapshot(keys: keys, models: models, token: token, referenced: referenced), records)
            }
        }

        private func publish(_ snapshot: Snapshot) {
            seen.withLock { $0 = (snapshot.token?.value ?? 0, Set(snapshot.keys.map(\.id))) }
            // A commit that could have changed the results but did not (an insert outside the
            // filter) delivers nothing.
            if let previous = live?.keys ?? lastKeys,
                previous.elementsEqual(snapshot.keys, by: { $0.id == $1.id && $0.version == $1.version }),
                lookup == nil || ObservedLookup.same(lastReferenced, snapshot.referenced)
            {
                return
            }
            lastReferenced = snapshot.referenced
            var numbered = snapshot
            sequence += 1
            numbered.sequence = sequence
            lastKeys = incremental ? nil : snapshot.keys
            lastToken = snapshot.token
            output.yield(numbered)
            deliveries.increment()
        }

        private func refetch() async throws {
            let (snapshot, records) = try await fetch()
            position = snapshot.token
            publish(snapshot)
            if incremental {
                live = IncrementalResults(records: records, models: snapshot.models, sort: plan.sort)
            }
        }

        /// Brings `live` up to date from the records changed since its position.
        private func catchUp(count: Int) async throws {
            switch try await readChanges(budget: Swift.max(256, count / 4)) {
            case .refetch:
                try await refetch()
            case .unchanged(let token):
                position = token
                seen.withLock { $0.token = Swift.max($0.token, token?.value ?? 0) }
            case .delta(let token, let changed, let matching):
                try apply(token: token, changed: changed, matching: matching)
            }
        }

        /// The records of the plan's entity changed since `position` and those of them that match,
        /// or `.refetch` when history cannot say (purged, or more than the budget changed).
        private func readChanges(budget: Int) async throws -> CatchUp {
            let (since, entity, predicate) = (position, plan.entity, plan.predicate)
            return try await store.backend.read { transaction -> CatchUp in
                let latest = try HistoryLog.lastToken(in: transaction)
                guard latest != since else { return .unchanged(latest) }
                guard let latestValue = latest?.value else { return .refetch }
                let from = since?.value ?? 0
                guard latestValue - from <= Int64(QueryObservation.catchUpLimit) else { return .refetch }
                let transactions = try HistoryLog.read(after: since, limit: nil, in: transaction)
                // Purged history: the changes cannot be known.
                guard transactions.count == latestValue - from, transactions.first?.token.value == from + 1 else {
                    return .refetch
                }
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
        }

        /// Applies a catch-up's changes to `live` and publishes the diff, if any.
        private func apply(token: HistoryToken?, changed: Set<RecordID>, matching: [Record]) throws {
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
            lastToken = token
            output.yield(
                Snapshot(keys: updated.keys, models: updated.models, token: token, sequence: sequence, diff: diff))
            deliveries.increment()
        }
    }
}
