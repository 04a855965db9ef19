/// Which numbered page to read: page `number` (from 1) of `size` models — what a client sends as
/// `?page=3&per=20` (Fluent's `PageRequest`).
public struct PageRequest: Sendable, Hashable, Codable {
    /// The page, from 1.
    public var number: Int
    /// Models per page, at least 1.
    public var size: Int

    /// Page `number` (from 1) of `size` models.
    public init(number: Int, size: Int) {
        self.number = number
        self.size = size
    }

    /// The query narrowed to this page; a page below 1, a size below 1, or a query that already
    /// has a limit or offset (which the page would silently override) is `invalidQuery`.
    func bounding<Model>(_ query: Query<Model>) throws -> Query<Model> {
        guard number >= 1, size >= 1 else {
            throw StrataError(
                .invalidQuery, entity: Model.entityName, "page \(number) of size \(size): both must be at least 1")
        }
        guard query.limit == nil, query.offset == 0 else {
            throw StrataError(
                .invalidQuery, entity: Model.entityName,
                "a numbered page sets the limit and offset itself; leave them off the query")
        }
        let (skipped, overflow) = (number - 1).multipliedReportingOverflow(by: size)
        guard !overflow else { throw StrataError(.invalidQuery, entity: Model.entityName, "page \(number) is too far") }
        return query.limit(size).offset(skipped)
    }
}

/// One numbered page of a query's results, with the total when asked for: what an API answers to
/// `?page=3&per=20`. Keyset pages (``Page``, `fetch(_:after:)`) stay correct while records are
/// inserted and are the better choice for feeds; numbered pages are for "page 3 of 12" screens.
public struct OffsetPage<Model: PersistentModel>: Sendable {
    /// The page's models, in the query's order.
    public let models: [Model]
    /// The page asked for.
    public let request: PageRequest
    /// How many models the whole query matches, read in the same read as the page; `nil` when not
    /// asked for.
    public let total: Int?

    /// A page (for test doubles of ``ModelReading``).
    public init(models: [Model], request: PageRequest, total: Int?) {
        self.models = models
        self.request = request
        self.total = total
    }

    /// How many pages the total makes (at least 1), when the total was read.
    public var pageCount: Int? { total.map { max(1, ($0 + request.size - 1) / request.size) } }
}

extension ModelReading {
    /// The default, for test doubles: a fetch, then a count. A store's and a context's repositories
    /// read both from one state.
    public func fetch(_ query: Query<Model>, page: PageRequest, withTotal: Bool) async throws -> OffsetPage<Model> {
        let bounded = try page.bounding(query)
        let models = try await fetch(bounded)
        return OffsetPage(models: models, request: page, total: withTotal ? try await count(query) : nil)
    }
}
