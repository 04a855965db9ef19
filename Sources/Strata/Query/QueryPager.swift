import Synchronization

/// The batches of a streamed query: keyset pages (each batch starts after the last record of the
/// one before, by the sort keys and the ID), or — for a query with an offset or a position sort
/// key, which a keyset cannot follow — offset pages. The query's own limit bounds the whole stream.
struct QueryPager<Model: PersistentModel>: Sendable {
    /// One batch to read: the query narrowed to it, and the cursor it starts after (keyset pages).
    struct Batch: Sendable {
        var query: Query<Model>
        var cursor: PageCursor?
        var byOffset: Bool
    }

    private let base: Query<Model>
    private let batchSize: Int
    private let byOffset: Bool
    private var skip: Int
    private var remaining: Int?
    private var cursor: PageCursor?
    private var finished = false

    /// A pager over `query`; a batch size below 1, or a query that cannot be planned, is refused.
    init(_ query: Query<Model>, batchSize: Int) throws {
        let plan = try query.plan()
        guard batchSize >= 1 else {
            throw StrataError(.invalidQuery, entity: plan.entity, "batch size \(batchSize) is below 1")
        }
        if let limit = plan.limit, limit < 0 {
            throw StrataError(.invalidQuery, entity: plan.entity, "limit \(limit) is negative")
        }
        var base = query
        base.limit = nil
        base.offset = 0
        self.base = base
        self.batchSize = batchSize
        byOffset = PageCursor.keysetRefusal(plan) != nil
        skip = plan.offset
        remaining = plan.limit
    }

    /// The next batch, or nil at the end.
    var next: Batch? {
        guard !finished else { return nil }
        let size = min(batchSize, remaining ?? batchSize)
        guard size > 0 else { return nil }
        return Batch(
            query: byOffset ? base.offset(skip).limit(size) : base.limit(size), cursor: cursor, byOffset: byOffset)
    }

    /// Records that a batch delivered `count` records and, for a keyset page, the cursor after it.
    mutating func advance(delivered count: Int, next: PageCursor?) {
        let asked = min(batchSize, remaining ?? batchSize)
        remaining = remaining.map { $0 - count }
        skip += count
        cursor = next
        if count < asked || (!byOffset && next == nil) { finished = true }
    }

    /// A batch source reading each batch with `read`, which answers a batch with its elements and
    /// the next cursor (nil for offset pages). `open` runs once the query is known to be valid and
    /// returns what the reads share (a snapshot) and how to release it.
    static func source<Element: Sendable, Shared: Sendable>(
        _ query: Query<Model>, batchSize: Int,
        open: () async throws -> (shared: Shared, close: @Sendable () -> Void),
        read: @escaping @Sendable (Shared, Batch) async throws -> (elements: [Element], next: PageCursor?)
    ) async throws -> BatchSource<Element> {
        let pager = Mutex(try QueryPager(query, batchSize: batchSize))
        let (shared, close) = try await open()
        return BatchSource(
            next: {
                guard let batch = pager.withLock({ $0.next }) else { return nil }
                let (elements, next) = try await read(shared, batch)
                pager.withLock { $0.advance(delivered: elements.count, next: next) }
                return elements
            }, close: close)
    }

    /// A batch source with nothing shared between its reads.
    static func source<Element: Sendable>(
        _ query: Query<Model>, batchSize: Int,
        read: @escaping @Sendable (Batch) async throws -> (elements: [Element], next: PageCursor?)
    ) async throws -> BatchSource<Element> {
        try await source(query, batchSize: batchSize, open: { ((), {}) }, read: { _, batch in try await read(batch) })
    }
}
