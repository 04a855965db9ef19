/// What the engine asks a backend to fetch: one entity, an optional predicate, sort keys and a page.
///
/// A backend evaluates the parts its ``FetchCapabilities`` declare; the engine only sends plans the
/// backend can answer completely (it evaluates the rest itself), so a backend never sees a plan
/// with parts it declined.
public struct FetchPlan: Sendable, Hashable {
    /// The entity fetched.
    public var entity: String
    /// The condition, or `nil` for every record.
    public var predicate: FilterExpression?
    /// Sort keys, most significant first; ID ascending always breaks ties.
    public var sort: [SortKey]
    /// At most this many records.
    public var limit: Int?
    /// Records to skip first.
    public var offset: Int

    /// A plan for one entity.
    public init(
        entity: String, predicate: FilterExpression? = nil, sort: [SortKey] = [], limit: Int? = nil, offset: Int = 0
    ) {
        self.entity = entity
        self.predicate = predicate
        self.sort = sort
        self.limit = limit
        self.offset = offset
    }
}

/// Which parts of a ``FetchPlan`` a backend evaluates natively. Values, not type checks: the
/// engine reads them and evaluates the declined parts itself, so results are identical.
public struct FetchCapabilities: Sendable, Hashable {
    /// The predicate features evaluated natively.
    public var predicateFeatures: Set<PredicateFeature>
    /// Sorting by stored properties with the contract's null ordering and ID tie-break.
    public var sorting: Bool
    /// Limit and offset (only sent together with sorting).
    public var paging: Bool
    /// `count` without materialising records.
    public var counting: Bool
    /// ``AggregatePlan``s (whose predicate uses declared features only) answered by
    /// ``StorageReadTransaction/aggregate(_:)`` — SQL's `GROUP BY`; otherwise the engine
    /// aggregates the records it fetches.
    public var aggregating: Bool
    /// The deepest predicate, by ``FilterExpression/nesting``, the backend is sent; `nil` for no
    /// limit. A part nested deeper is the engine's to evaluate (SQLite's parser, for one, has a
    /// fixed stack: sixteen `EXISTS` inside each other overflow it).
    public var maximumNesting: Int?

    /// Declares what a backend evaluates itself.
    public init(
        predicateFeatures: Set<PredicateFeature>, sorting: Bool, paging: Bool, counting: Bool,
        aggregating: Bool = false,
        maximumNesting: Int? = nil
    ) {
        self.predicateFeatures = predicateFeatures
        self.sorting = sorting
        self.paging = paging
        self.counting = counting
        self.aggregating = aggregating
        self.maximumNesting = maximumNesting
    }

    /// Every fetch plan, filtered, sorted, paged and counted by the backend (aggregates are
    /// declared apart, with `aggregating`).
    public static let all = FetchCapabilities(
        predicateFeatures: Set(PredicateFeature.allCases), sorting: true, paging: true, counting: true)

    /// Nothing: the backend only lists an entity's records; the engine filters, sorts and pages.
    /// Such a backend is never sent a predicate — not even a constant: the engine folds constant
    /// predicates away, answers "never" itself and drops "always" — nor a sort, a limit or an offset.
    public static let none = FetchCapabilities(predicateFeatures: [], sorting: false, paging: false, counting: false)
}
