import GRDB
import StrataStorage

/// Translates a ``FetchPlan`` into one SQL statement. Identifiers come from the schema and are
/// quoted; every value is a bound argument, never text in the SQL.
///
/// The contract's logic is two-valued; SQL's is three-valued, and the two differ only under a
/// `NOT` (a comparison with a null column is NULL, and `NOT NULL` is not true). So conditions are
/// written plainly — `col = ?`, `col IN (…)`, `col BETWEEN ? AND ?`, which SQLite answers from an
/// index — and wrapped in `IFNULL(…, 0)` only inside a `NOT`, where a NULL must count as false
/// before it is negated. `!=` is `IS NOT` (a null column differs from every value). To-one conditions are
/// `EXISTS` over the destination; `any`/`none` are `EXISTS`/`NOT EXISTS` over the relationship's
/// storage. Text with case or diacritic options goes through `strata_fold`/`strata_text`,
/// registered on every connection with the engine's own folding, so results are identical.
struct SQLiteQuery {
    let layout: SQLiteLayout
    private(set) var arguments: [DatabaseValue] = []
    private var aliases = 0

    init(layout: SQLiteLayout) {
        self.layout = layout
    }

    mutating func select(_ plan: FetchPlan) throws -> String {
        let table = try layout.table(plan.entity)
        var sql = "SELECT \(table.selectList) FROM \(table.name) AS t0"
        if let predicate = plan.predicate {
            sql += " WHERE " + (try condition(predicate, table.entity, "t0", negated: false))
        }
        // With a condition an index can answer, `+` keeps SQLite from preferring a scan in ID order
        // (the tie-break) over that index: without statistics it rates a sort dearer than a scan.
        // Where the condition's own index (its columns, then `id`) yields the requested order, the
        // plain key lets SQLite read rows in order and stop at the limit.
        let indexable = plan.predicate.map { Self.hasIndexableConjunct($0, table.entity) } == true
        let idOrder = indexable && !Self.indexYieldsOrder(plan, table.entity) ? "+t0.\"id\" ASC" : "t0.\"id\" ASC"
        let keys = plan.sort.map { "t0.\(quoted($0.property)) \($0.ascending ? "ASC" : "DESC")" } + [idOrder]
        sql += " ORDER BY " + keys.joined(separator: ", ")
        if plan.limit != nil || plan.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments.append(Int64(plan.limit ?? -1).databaseValue)
            arguments.append(Int64(plan.offset).databaseValue)
        }
        return sql
    }

    mutating func count(_ plan: FetchPlan) throws -> String {
        let table = try layout.table(plan.entity)
        var sql = "SELECT count(*) FROM \(table.name) AS t0"
        if let predicate = plan.predicate {
            sql += " WHERE " + (try condition(predicate, table.entity, "t0", negated: false))
        }
        return sql
    }

    /// An aggregate as one `SELECT … GROUP BY`: the group column first (when grouped), then the
    /// functions' columns. An integer sum is SQLite's `sum` and an integer average its `sum` and
    /// `count` (divided as the engine divides) — unless `exact`, when they are `strata_sum` and
    /// `strata_average`, 128-bit like the engine's: SQLite's `sum` fails on any intermediate
    /// overflow, which depends on the scan order, so the backend reruns a plan that overflowed
    /// exactly and only a total outside `Int64` fails. Double sums are `total` (0.0 over nothing).
    mutating func aggregate(_ plan: AggregatePlan, exact: Bool) throws -> String {
        let table = try layout.table(plan.entity)
        var columns: [String] = []
        if let group = plan.groupBy { columns.append("t0.\(quoted(group))") }
        for function in plan.functions {
            let type = function.property.flatMap { table.entity.attribute($0)?.type }
            let column = function.property.map { "t0.\(quoted($0))" } ?? "*"
            switch function {
            case .count: columns.append("count(*)")
            case .sum where type == .int: columns.append(exact ? "strata_sum(\(column))" : "sum(\(column))")
            case .sum: columns.append("total(\(column))")
            case .average where type == .int:
                columns.append(exact ? "strata_average(\(column))" : "sum(\(column)), count(\(column))")
            case .average: columns.append("avg(\(column))")
            case .min: columns.append("min(\(column))")
            case .max: columns.append("max(\(column))")
            }
        }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(table.name) AS t0"
        if let predicate = plan.predicate {
            sql += " WHERE " + (try condition(predicate, table.entity, "t0", negated: false))
        }
        if let group = plan.groupBy { sql += " GROUP BY t0.\(quoted(group)) ORDER BY t0.\(quoted(group)) ASC" }
        return sql
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
                if case .compare(let property, .equal, let constant, let options) = $0 {
                    return options.isEmpty && !constant.isNull && singleIndexed(property)
                }
                return false
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

    private mutating func bind(_ value: Value) -> String {
        arguments.append(SQLiteValues.databaseValue(value))
        return "?"
    }

    private mutating func alias() -> String {
        aliases += 1
        return "t\(aliases)"
    }

    /// - Parameter negated: Whether a `NOT` encloses the condition, so a NULL must read as false.
    private mutating func condition(
        _ expression: FilterExpression, _ entity: EntityDescription, _ alias: String, negated: Bool
    ) throws -> String {
        func column(_ property: String) -> String { "\(alias).\(quoted(property))" }
        func twoValued(_ comparison: String) -> String { negated ? "IFNULL(\(comparison), 0)" : "(\(comparison))" }
        switch expression {
        case .constant(let flag):
            return flag ? "1" : "0"
        case .compare(let property, let op, let constant, let options):
            if constant.isNull {
                return op == .notEqual
                    ? "(\(column(property)) IS NOT NULL)" : op == .equal ? "(\(column(property)) IS NULL)" : "0"
            }
            let (left, right) = folded(column(property), constant, options)
            switch op {
            case .notEqual: return "(\(left) IS NOT \(right))"
            default: return twoValued("\(left) \(op == .equal ? "=" : op.rawValue) \(right)")
            }
        case .inList(let property, let constants, let options):
            let nonNull = constants.filter { !$0.isNull }
            var parts: [String] = []
            if !nonNull.isEmpty {
                let textual = !options.isEmpty && nonNull.allSatisfy { if case .string = $0 { true } else { false } }
                let target = textual ? Self.fold(column(property), options) : column(property)
                let list = nonNull.map { constant in textual ? Self.fold(bind(constant), options) : bind(constant) }
                parts.append(twoValued("\(target) IN (\(list.joined(separator: ", ")))"))
            }
            if nonNull.count != constants.count { parts.append("(\(column(property)) IS NULL)") }
            return parts.isEmpty ? "0" : "(" + parts.joined(separator: " OR ") + ")"
        case .between(let property, let lower, let upper):
            if lower.isNull || upper.isNull { return "0" }
            return twoValued("\(column(property)) BETWEEN \(bind(lower)) AND \(bind(upper))")
        case .text(let property, let op, let needle, let options):
            let code = op == .contains ? 0 : op == .hasPrefix ? 1 : 2
            return twoValued(
                "strata_text(CAST(\(column(property)) AS BLOB), CAST(\(bind(.string(needle))) AS BLOB), \(code), \(options.rawValue))"
            )
        case .isNil(let property):
            return "(\(column(property)) IS NULL)"
        case .and(let parts):
            if parts.isEmpty { return "1" }
            return "("
                + (try parts.map { try condition($0, entity, alias, negated: negated) }).joined(separator: " AND ")
                + ")"
        case .or(let parts):
            if parts.isEmpty { return "0" }
            return "("
                + (try parts.map { try condition($0, entity, alias, negated: negated) }).joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT \(try condition(inner, entity, alias, negated: true)))"
        case .relatedOne(let name, let inner):
            let relationship = try self.relationship(name, of: entity)
            let destination = try layout.table(relationship.destination)
            let other = self.alias()
            // EXISTS is never NULL; inside it, a NULL condition drops the row, as false would.
            return
                "EXISTS (SELECT 1 FROM \(destination.name) AS \(other) WHERE \(other).\"id\" = \(column(name)) AND \(try condition(inner, destination.entity, other, negated: false)))"
        case .anyRelated(let name, let inner):
            return try exists(name, inner, entity, alias)
        case .noneRelated(let name, let inner):
            return "(NOT \(try exists(name, inner, entity, alias)))"
        }
    }

    private mutating func exists(
        _ name: String, _ inner: FilterExpression, _ entity: EntityDescription, _ alias: String
    ) throws -> String {
        let relationship = try self.relationship(name, of: entity)
        let destination = try layout.table(relationship.destination)
        let other = self.alias()
        let join: String
        switch relationship.storage {
        case .reference:
            join = "FROM \(destination.name) AS \(other) WHERE \(other).\"id\" = \(alias).\(quoted(name))"
        case .inverseReference:
            join =
                "FROM \(destination.name) AS \(other) WHERE \(other).\(quoted(relationship.inverse ?? "")) = \(alias).\"id\""
        case .orderedLinks, .links:
            let link = self.alias()
            join =
                "FROM \(layout.linkTable(entity.name, name)) AS \(link) JOIN \(destination.name) AS \(other) ON \(other).\"id\" = \(link).target WHERE \(link).owner = \(alias).\"id\""
        case .inverseLinks:
            let link = self.alias()
            join =
                "FROM \(layout.linkTable(relationship.destination, relationship.inverse ?? "")) AS \(link) JOIN \(destination.name) AS \(other) ON \(other).\"id\" = \(link).owner WHERE \(link).target = \(alias).\"id\""
        }
        return "EXISTS (SELECT 1 \(join) AND \(try condition(inner, destination.entity, other, negated: false)))"
    }

    private mutating func folded(_ column: String, _ constant: Value, _ options: TextOptions) -> (String, String) {
        guard !options.isEmpty, case .string = constant else { return (column, bind(constant)) }
        return (Self.fold(column, options), Self.fold(bind(constant), options))
    }

    private static func fold(_ operand: String, _ options: TextOptions) -> String {
        "strata_fold(CAST(\(operand) AS BLOB), \(options.rawValue))"
    }

    private func relationship(_ name: String, of entity: EntityDescription) throws -> RelationshipDescription {
        guard let relationship = entity.relationship(name) else {
            throw StrataError(
                .unknownProperty, entity: entity.name, property: name, "\(name) is not a relationship of \(entity.name)"
            )
        }
        return relationship
    }
}
