/// Streamed reads through a context: each batch one read of the store with the context's pending
/// changes laid on top (batch-consistent), decoded as the context shows them but not registered —
/// a stream over a large store leaves the context's memory as it was.
extension ModelContext {
    /// A query's results read `batchSize` at a time, pending changes included (see ``ModelStream``).
    public nonisolated func stream<M: PersistentModel>(_ query: Query<M>, batchSize: Int) -> ModelStream<M> {
        ModelStream {
            try await QueryPager.source(query, batchSize: batchSize) { batch in
                let (records, next) = try await self.readBatch(batch)
                return (try await self.decodeUnregistered(M.self, records), next)
            }
        }
    }

    /// A query's results in batches, pending changes included, each model with a to-many's
    /// destinations read in the same read as its batch.
    public nonisolated func stream<M: PersistentModel, D: PersistentModel>(
        _ query: Query<M>, batchSize: Int, including relationship: ToMany<M, D>
    ) -> ModelStream<(model: M, related: [D])> {
        ModelStream {
            try await QueryPager.source(query, batchSize: batchSize) { batch in
                let (records, next, related) = try await self.readBatch(batch, including: relationship.name)
                let models = try await self.decodeUnregistered(M.self, records)
                var elements: [(model: M, related: [D])] = []
                elements.reserveCapacity(models.count)
                for model in models {
                    let members = related[model.id.recordID] ?? []
                    elements.append((model, try await self.decodeUnregistered(D.self, members)))
                }
                return (elements, next)
            }
        }
    }

    /// One batch's records over the overlay and the cursor after it; with `relationship`, each
    /// record's destinations too.
    private func readBatch<M: PersistentModel>(_ batch: QueryPager<M>.Batch, including relationship: String? = nil)
        async throws -> ([Record], PageCursor?, [RecordID: [Record]])
    {
        let plan =
            batch.byOffset
            ? KeysetPlan(plan: try batch.query.plan(), relevance: nil)
            : try PageCursor.plan(batch.query, after: batch.cursor)
        let (page, related) = try await readOverlaid { view, executor in
            let page = try executor.fetchPage(plan, in: view)
            guard let relationship else { return (page, [RecordID: [Record]]()) }
            let reader = StoreReader(transaction: view, executor: executor)
            return (page, try reader.relatedRecords(M.entityName, relationship, owners: page.records.map(\.id)))
        }
        let next = batch.byOffset ? nil : PageCursor.page(page, [M](), plan: plan).next
        return (page.records, next, related)
    }

    private func readBatch<M: PersistentModel>(_ batch: QueryPager<M>.Batch) async throws -> ([Record], PageCursor?) {
        let (records, next, _) = try await readBatch(batch, including: nil)
        return (records, next)
    }

    /// Records as this context shows them (its registered state where it has one), not registered.
    private func decodeUnregistered<M: PersistentModel>(_ type: M.Type, _ records: [Record]) throws -> [M] {
        try KeyPathDecoding.decodeAll(M.self, records.map { tracker[$0.key]?.current ?? $0 })
    }
}
