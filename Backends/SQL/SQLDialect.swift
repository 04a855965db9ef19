import StrataStorage

/// What differs between the SQL the built-in SQL backends speak (SQLite, PostgreSQL): placeholders,
/// literals, null handling, sort keys, paging, and the conditions a dialect writes its own way.
/// ``SQLTranslator`` writes everything else once. The defaults are standard SQL; a dialect
/// overrides what it says differently.
package protocol SQLDialect {
    /// The placeholder of the `index`th bound value (1-based).
    static func placeholder(_ index: Int) -> String
    static var trueLiteral: String { get }
    static var falseLiteral: String { get }
    /// `comparison`, reading NULL as false: what a condition under a `NOT` needs (the contract's
    /// logic is two-valued; SQL's is three-valued, and the two differ only under a `NOT`).
    static func falseIfNull(_ comparison: String) -> String
    /// `left` differs from `right`, where a NULL differs from every value.
    static func distinct(_ left: String, _ right: String) -> String
    /// A quoted column name.
    static func column(_ property: String) -> String
    /// One sort key: ascending puts nulls first, descending last (the contract's order).
    static func sortKey(_ column: String, ascending: Bool) -> String
    /// The ID key that ends every sort; a dialect may steer its planner here (see SQLite's).
    static func idSortKey(_ plan: FetchPlan, _ entity: EntityDescription) -> String
    /// `LIMIT`/`OFFSET` for a plan with either.
    static func paging(limit: Int?, offset: Int, _ translator: inout SQLTranslator<Self>) -> String

    /// A comparison with a non-null constant.
    static func compare(
        _ column: String, _ op: ComparisonOperator, _ constant: Value, _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String
    /// `column IN (constants)`, the constants non-null.
    static func inList(
        _ column: String, _ constants: [Value], _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String
    /// `column BETWEEN lower AND upper`, both non-null.
    static func between(
        _ column: String, _ lower: Value, _ upper: Value, negated: Bool, _ translator: inout SQLTranslator<Self>
    ) -> String
    /// A text condition (contains, prefix, suffix).
    static func text(
        _ column: String, _ op: TextOperator, _ needle: String, _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String
    /// A contains, contains-any or count test of an array, set or dictionary column (stored as
    /// canonical JSON, see `CollectionForm`). `elementTable` is the layout's table of the
    /// attribute's elements when it keeps one; `id` the row's ID column.
    static func elements(
        _ column: String, _ test: ElementTest, _ attribute: AttributeDescription, elementTable: String?, id: String,
        negated: Bool, _ translator: inout SQLTranslator<Self>
    ) -> String
    /// A document column's value at `path` compared (`==` or `!=`) with a scalar or null constant.
    static func documentPath(
        _ column: String, _ path: [String], _ op: ComparisonOperator, _ constant: Value, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String
}

extension SQLDialect {
    package static func twoValued(_ comparison: String, negated: Bool) -> String {
        negated ? falseIfNull(comparison) : "(\(comparison))"
    }

    package static func idSortKey(_ plan: FetchPlan, _ entity: EntityDescription) -> String { "t0.\"id\" ASC" }

    package static func compare(
        _ column: String, _ op: ComparisonOperator, _ constant: Value, _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        plainCompare(column, op, constant, negated: negated, &translator)
    }

    /// `column op constant`, the constant bound as it is (no text options).
    package static func plainCompare(
        _ column: String, _ op: ComparisonOperator, _ constant: Value, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        let value = translator.bind(constant)
        switch op {
        case .notEqual: return "(\(distinct(column, value)))"
        case .equal: return twoValued("\(column) = \(value)", negated: negated)
        default: return twoValued("\(column) \(op.rawValue) \(value)", negated: negated)
        }
    }

    package static func inList(
        _ column: String, _ constants: [Value], _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        guard !constants.isEmpty else { return falseLiteral }
        let list = constants.map { translator.bind($0) }
        return twoValued("\(column) IN (\(list.joined(separator: ", ")))", negated: negated)
    }

    package static func between(
        _ column: String, _ lower: Value, _ upper: Value, negated: Bool, _ translator: inout SQLTranslator<Self>
    ) -> String {
        twoValued(
            "\(column) BETWEEN \(translator.bind(lower)) AND \(translator.bind(upper))", negated: negated)
    }
}
