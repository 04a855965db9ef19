/// Streamed reads on every ``ModelReading``: the default batches are keyset pages read through
/// `fetch(_:after:)` (offset pages for a query with an offset or a position sort key), so a test
/// double gets them too; a repository and a context read theirs in one read per batch.
extension ModelReading {
    /// A query's results (every model when omitted) read in batches of
    /// ``ModelStream/defaultBatchSize``:
    ///
    /// ```swift
    /// for try await trip in trips.stream(Query<Trip>.all.sorted(by: \.start)) { try report.add(trip) }
    /// ```
    public func stream(_ query: Query<Model> = .all) -> ModelStream<Model> {
        stream(query, batchSize: ModelStream<Model>.defaultBatchSize)
    }

    /// A query's results in batches of ``ModelStream/defaultBatchSize``, each model with a
    /// to-many's destinations.
    public func stream<D: PersistentModel>(_ query: Query<Model>, including relationship: ToMany<Model, D>)
        -> ModelStream<(model: Model, related: [D])>
    {
        stream(query, batchSize: ModelStream<Model>.defaultBatchSize, including: relationship)
    }

    public func stream(_ query: Query<Model>, batchSize: Int) -> ModelStream<Model> {
        ModelStream {
            try await QueryPager.source(query, batchSize: batchSize) { batch in
                if batch.byOffset { return (try await self.fetch(batch.query), nil) }
                let page = try await self.fetch(batch.query, after: batch.cursor)
                return (page.models, page.next)
            }
        }
    }

    public func stream<D: PersistentModel>(
        _ query: Query<Model>, batchSize: Int, including relationship: ToMany<Model, D>
    ) -> ModelStream<(model: Model, related: [D])> {
        ModelStream {
            try await QueryPager.source(query, batchSize: batchSize) { batch in
                let (models, next): ([Model], PageCursor?)
                if batch.byOffset {
                    (models, next) = (try await self.fetch(batch.query), nil)
                } else {
                    let page = try await self.fetch(batch.query, after: batch.cursor)
                    (models, next) = (page.models, page.next)
                }
                var elements: [(model: Model, related: [D])] = []
                for model in models { elements.append((model, try await self.related(relationship, of: model.id))) }
                return (elements, next)
            }
        }
    }
}
