import StrataSQL
import StrataStorage

/// SQLite's SQL: `?` placeholders, `1`/`0`, `IFNULL`, `IS NOT`; its default null ordering is the
/// contract's. Text with case or diacritic options goes through `strata_fold`/`strata_text`,
/// registered on every connection with the engine's own folding, so results are identical.
enum SQLiteDialect: SQLDialect {
    static func placeholder(_ index: Int) -> String { "?" }
    static let trueLiteral = "1"
    static let falseLiteral = "0"
    static func falseIfNull(_ comparison: String) -> String { "IFNULL(\(comparison), 0)" }
    static func distinct(_ left: String, _ right: String) -> String { "\(left) IS NOT \(right)" }
    static func column(_ property: String) -> String { quoted(property) }
    static func sortKey(_ column: String, ascending: Bool) -> String { "\(column) \(ascending ? "ASC" : "DESC")" }

    /// With a condition an index can answer, `+` keeps SQLite from preferring a scan in ID order
    /// (the tie-break) over that index: without statistics it rates a sort dearer than a scan.
    /// Where the condition's own index (its columns, then `id`) yields the requested order, the
    /// plain key lets SQLite read rows in order and stop at the limit.
    static func idSortKey(_ plan: FetchPlan, _ entity: EntityDescription) -> String {
        let indexable = plan.predicate.map { hasIndexableConjunct($0, entity) } == true
        return indexable && !indexYieldsOrder(plan, entity) ? "+t0.\"id\" ASC" : "t0.\"id\" ASC"
    }

    static func paging(limit: Int?, offset: Int, _ translator: inout SQLTranslator<Self>) -> String {
        " LIMIT \(translator.bind(.int(Int64(limit ?? -1)))) OFFSET \(translator.bind(.int(Int64(offset))))"
    }

    static func compare(
        _ column: String, _ op: ComparisonOperator, _ constant: Value, _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        guard !options.isEmpty, case .string = constant else {
            return plainCompare(column, op, constant, negated: negated, &translator)
        }
        let (left, right) = (fold(column, options), fold(translator.bind(constant), options))
        if op == .notEqual { return "(\(left) IS NOT \(right))" }
        return twoValued("\(left) \(op == .equal ? "=" : op.rawValue) \(right)", negated: negated)
    }

    static func inList(
        _ column: String, _ constants: [Value], _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        let textual = !options.isEmpty && constants.allSatisfy { if case .string = $0 { true } else { false } }
        let target = textual ? fold(column, options) : column
        let list = constants.map { constant in
            textual ? fold(translator.bind(constant), options) : translator.bind(constant)
        }
        return twoValued("\(target) IN (\(list.joined(separator: ", ")))", negated: negated)
    }

    static func text(
        _ column: String, _ op: TextOperator, _ needle: String, _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        let code = op == .contains ? 0 : op == .hasPrefix ? 1 : 2
        let value = translator.bind(.string(needle))
        return twoValued(
            "strata_text(CAST(\(column) AS BLOB), CAST(\(value) AS BLOB), \(code), \(options.rawValue))",
            negated: negated)
    }

    private static func fold(_ operand: String, _ options: TextOptions) -> String {
        "strata_fold(CAST(\(operand) AS BLOB), \(options.rawValue))"
    }

    /// Whether a single-column index (its column, then `id`) both answers a top-level conjunct and
    /// yields the plan's order: an equality with no sort keys (rows come in ID order), or a
    /// condition on the one ascending sort key.
    static func indexYieldsOrder(_ plan: FetchPlan, _ entity: EntityDescription) -> Bool {
        let conjuncts: [FilterExpression]
        switch plan.predicate {
        case .and(let parts)?: conjuncts = parts
        case let single?: conjuncts = [single]
        case nil: return false
        }
        func singleIndexed(_ property: String) -> Bool {
            entity.attribute(property)?.isIndexed == true || entity.relationship(property)?.isToOne == true
                || entity.indexes.contains([property]) || entity.uniqueConstraints.contains([property])
        }
        if plan.sort.isEmpty {
            return conjuncts.contains {
                guard case .compare(let property, let op, let constant, let options) = $0, options.isEmpty,
                    !constant.isNull
                else { return false }
                // A range on the ID itself (a keyset page in ID order: a stream's batch) walks the
                // ID's own index in order from the seek.
                if property == "id" { return op != .notEqual }
                return op == .equal && singleIndexed(property)
            }
        }
        guard plan.sort.count == 1, let key = plan.sort.first, key.ascending, singleIndexed(key.property) else {
            return false
        }
        return conjuncts.contains {
            switch $0 {
            case .compare(let property, let op, let constant, let options):
                return property == key.property && op != .notEqual && options.isEmpty && !constant.isNull
            case .between(let property, _, _): return property == key.property
            default: return false
            }
        }
    }

    /// Whether some top-level conjunct is a comparison, list or range over `id` or an indexed
    /// property, without text options: what SQLite can answer from an index.
    static func hasIndexableConjunct(_ expression: FilterExpression, _ entity: EntityDescription) -> Bool {
        func indexed(_ property: String) -> Bool { property == "id" || entity.indexedProperties.contains(property) }
        switch expression {
        case .compare(let property, let op, let constant, let options):
            return op != .notEqual && options.isEmpty && !constant.isNull && indexed(property)
        case .inList(let property, _, let options): return options.isEmpty && indexed(property)
        case .between(let property, _, _): return indexed(property)
        case .and(let parts): return parts.contains { hasIndexableConjunct($0, entity) }
        default: return false
        }
    }
}
