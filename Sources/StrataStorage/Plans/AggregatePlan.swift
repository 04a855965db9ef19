/// One aggregate over an entity's records: what ``AggregatePlan/functions`` lists.
///
/// Nulls are skipped by every function but `count` (which counts records), as in SQL:
/// - `count`: how many records, as `.int`.
/// - `sum(_:)`: of an `int` attribute, `.int` (a sum outside `Int64` is
///   ``StrataError/Code/invalidQuery``); of a `double` attribute, `.double`. With no values, `0`
///   of that type (as Core Data's `@sum`), never null.
/// - `average(_:)`: `.double`, or `.null` with no values. Of integers it is
///   `Double(sum) / Double(count)`.
/// - `min(_:)`, `max(_:)`: of an `int`, `double`, `string` or `date` attribute, a value of
///   that type in the contract's order (text by UTF-8 bytes), or `.null` with no values.
///
/// Double sums and averages add in the backend's order; they are identical everywhere when the
/// values sum exactly (as money in cents or halves do) and may differ in the last bits otherwise.
public enum AggregateFunction: Sendable, Hashable, CustomStringConvertible {
    /// How many records.
    case count
    /// The sum of an `int` or `double` attribute (0 over no values).
    case sum(String)
    /// The average of an `int` or `double` attribute (null over no values).
    case average(String)
    /// The least value of an attribute (null over no values).
    case min(String)
    /// The greatest value of an attribute (null over no values).
    case max(String)

    /// The attribute the function reads, or `nil` for `count`.
    public var property: String? {
        switch self {
        case .count: nil
        case .sum(let name), .average(let name), .min(let name), .max(let name): name
        }
    }

    /// The function's name: `count`, `sum`, `average`, `min` or `max`.
    public var name: String {
        switch self {
        case .count: "count"
        case .sum: "sum"
        case .average: "average"
        case .min: "min"
        case .max: "max"
        }
    }

    public var description: String { property.map { "\(name)(\($0))" } ?? name }
}

/// What the engine asks for when it aggregates: one entity, an optional predicate, an optional
/// grouping property (an attribute or a to-one) and the functions, in the order results list them.
///
/// Without `groupBy` the answer is exactly one row (over no records too: count 0, sums 0, the
/// rest null). With it, one row per distinct value among the matching records — nulls form a
/// group of their own — in the contract's order of that value, nulls first. A group no record
/// matches does not appear.
public struct AggregatePlan: Sendable, Hashable {
    /// The entity aggregated.
    public var entity: String
    /// The condition, or `nil` for every record.
    public var predicate: FilterExpression?
    /// The attribute or to-one whose values form the groups, or `nil` for one group of all.
    public var groupBy: String?
    /// The functions, in the order each row's ``AggregateRow/values`` lists them.
    public var functions: [AggregateFunction]

    /// A plan for one entity.
    public init(
        entity: String, predicate: FilterExpression? = nil, groupBy: String? = nil, functions: [AggregateFunction]
    ) {
        self.entity = entity
        self.predicate = predicate
        self.groupBy = groupBy
        self.functions = functions
    }
}

/// One group's results.
public struct AggregateRow: Sendable, Hashable {
    /// The group's value of ``AggregatePlan/groupBy`` (a to-one's as its destination ID's value);
    /// `.null` for the null group and when the plan has no grouping.
    public var group: Value
    /// One value per ``AggregatePlan/functions``, in that order.
    public var values: [Value]

    /// A row of a group's value and its results.
    public init(group: Value, values: [Value]) {
        self.group = group
        self.values = values
    }
}

extension StrataError {
    /// The error every backend gives for an integer sum outside `Int64` (the sum is exact, so it
    /// depends only on the total, never on the order values were added in).
    public static func sumOverflow(entity: String, property: String) -> StrataError {
        StrataError(
            .invalidQuery, entity: entity, property: property,
            "the sum of \(entity).\(property) is outside the 64-bit integer range")
    }
}
