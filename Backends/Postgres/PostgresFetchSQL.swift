import PostgresNIO
import StrataStorage

/// Translates a ``FetchPlan`` into one SQL statement. Identifiers come from the schema and are
/// quoted; every value is a bound parameter (`$n`), never text in the SQL.
///
/// The contract's logic is two-valued; SQL's is three-valued, and the two differ only under a
/// `NOT`, so comparisons are written plainly (`col = $1`, which an index answers) and wrapped in
/// `COALESCE(…, FALSE)` only inside a `NOT`. `!=` is `IS DISTINCT FROM` (a null column differs
/// from every value). Sorting names its null ordering (`NULLS FIRST` ascending, `NULLS LAST`
/// descending) and ends with `id`, so SQL order is the contract's. To-one conditions are `EXISTS`
/// over the destination; `any`/`none` are `EXISTS`/`NOT EXISTS` over the relationship's storage.
///
/// Text compares in `COLLATE "C"` (UTF-8 byte order). PostgreSQL text cannot hold U+0000, and
/// stored text never does (the engine refuses it), so a constant containing it is rewritten to
/// the comparison it is equivalent to over such text rather than sent.
struct PostgresFetchSQL {
    let layout: PostgresLayout
    private(set) var binds = PostgresBindings()
    private var aliases = 0

    /// What this backend evaluates: everything but case- and diacritic-insensitive text, whose
    /// folding is the engine's own (the engine evaluates plans that use it).
    static let capabilities = FetchCapabilities(
        // Listed, not `allCases`: a feature added later is the engine's until this backend's SQL
        // answers it. Case- and diacritic-insensitive text is the engine's (one folding function).
        predicateFeatures: [.equality, .ordering, .inList, .between, .text, .isNil, .logic, .toOne, .toMany],
        sorting: true, paging: true, counting: true, aggregating: true)

    init(layout: PostgresLayout) {
        self.layout = layout
    }

    mutating func select(_ plan: FetchPlan) throws -> String {
        let table = try layout.table(plan.entity)
        var sql = "SELECT \(table.selectList) FROM \(table.name) AS t0"
        if let predicate = plan.predicate {
            sql += " WHERE " + (try condition(predicate, table.entity, "t0", negated: false))
        }
        let keys = plan.sort.map {
            "t0.\(PostgresLayout.column($0.property)) \($0.ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
        }
        sql += " ORDER BY " + (keys + ["t0.\"id\" ASC"]).joined(separator: ", ")
        if let limit = plan.limit {
            sql += " LIMIT \(bind(.int(Int64(limit))))"
        }
        if plan.offset > 0 {
            sql += " OFFSET \(bind(.int(Int64(plan.offset))))"
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

    /// An aggregate as one `SELECT … GROUP BY`: the group column first (when grouped), then one
    /// column per function. Integer sums come back as the text of PostgreSQL's exact `numeric`
    /// sum (a total outside `Int64` is the engine's overflow error, whatever the order of
    /// addition); integer averages are that sum as a double over the count, as the engine's.
    mutating func aggregate(_ plan: AggregatePlan) throws -> String {
        let table = try layout.table(plan.entity)
        var columns: [String] = []
        if let group = plan.groupBy { columns.append("t0.\(PostgresLayout.column(group))") }
        for function in plan.functions {
            let type = function.property.flatMap { table.entity.attribute($0)?.type }
            let column = function.property.map { "t0.\(PostgresLayout.column($0))" } ?? "*"
            switch function {
            case .count: columns.append("count(*)")
            case .sum:
                columns.append(
                    type == .int ? "COALESCE(sum(\(column)), 0)::text" : "COALESCE(sum(\(column)), 0)::float8")
            case .average:
                columns.append(type == .int ? "(sum(\(column))::float8 / count(\(column))::float8)" : "avg(\(column))")
            case .min: columns.append("min(\(column))")
            case .max: columns.append("max(\(column))")
            }
        }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(table.name) AS t0"
        if let predicate = plan.predicate {
            sql += " WHERE " + (try condition(predicate, table.entity, "t0", negated: false))
        }
        if let group = plan.groupBy {
            sql +=
                " GROUP BY t0.\(PostgresLayout.column(group)) ORDER BY t0.\(PostgresLayout.column(group)) ASC "
                + "NULLS FIRST"
        }
        return sql
    }

    private mutating func bind(_ value: Value) -> String {
        binds.append(strata: value)
        return "$\(binds.count)"
    }

    private mutating func alias() -> String {
        aliases += 1
        return "t\(aliases)"
    }

    /// Text up to its first U+0000, when it has one.
    private static func beforeNUL(_ value: Value) -> String? {
        guard case .string(let text) = value, let nul = text.unicodeScalars.firstIndex(of: "\u{0}") else { return nil }
        return String(text.unicodeScalars[..<nul])
    }

    private mutating func comparison(_ column: String, _ op: ComparisonOperator, _ constant: Value, negated: Bool)
        -> String
    {
        func twoValued(_ comparison: String) -> String {
            negated ? "COALESCE(\(comparison), FALSE)" : "(\(comparison))"
        }
        if let prefix = Self.beforeNUL(constant) {
            // Over text without U+0000, `x < "a\0b"` is `x <= "a"` and `x > "a\0b"` is `x > "a"`;
            // nothing equals it.
            switch op {
            case .equal: return "FALSE"
            case .notEqual: return "TRUE"
            case .less, .lessOrEqual: return twoValued("\(column) <= \(bind(.string(prefix)))")
            case .greater, .greaterOrEqual: return twoValued("\(column) > \(bind(.string(prefix)))")
            }
        }
        switch op {
        case .notEqual: return "(\(column) IS DISTINCT FROM \(bind(constant)))"
        case .equal: return twoValued("\(column) = \(bind(constant))")
        default: return twoValued("\(column) \(op.rawValue) \(bind(constant))")
        }
    }

    /// - Parameter negated: Whether a `NOT` encloses the condition, so a NULL must read as false.
    private mutating func condition(
        _ expression: FilterExpression, _ entity: EntityDescription, _ alias: String, negated: Bool
    ) throws -> String {
        func column(_ property: String) -> String { "\(alias).\(PostgresLayout.column(property))" }
        func twoValued(_ comparison: String) -> String {
            negated ? "COALESCE(\(comparison), FALSE)" : "(\(comparison))"
        }
        switch expression {
        case .constant(let flag):
            return flag ? "TRUE" : "FALSE"
        case .compare(let property, let op, let constant, _):
            if constant.isNull {
                return op == .notEqual
                    ? "(\(column(property)) IS NOT NULL)" : op == .equal ? "(\(column(property)) IS NULL)" : "FALSE"
            }
            return comparison(column(property), op, constant, negated: negated)
        case .inList(let property, let constants, _):
            let nonNull = constants.filter { !$0.isNull && Self.beforeNUL($0) == nil }
            var parts: [String] = []
            if !nonNull.isEmpty {
                let list = nonNull.map { bind($0) }
                parts.append(twoValued("\(column(property)) IN (\(list.joined(separator: ", ")))"))
            }
            if constants.contains(where: \.isNull) { parts.append("(\(column(property)) IS NULL)") }
            return parts.isEmpty ? "FALSE" : "(" + parts.joined(separator: " OR ") + ")"
        case .between(let property, let lower, let upper):
            if lower.isNull || upper.isNull { return "FALSE" }
            if Self.beforeNUL(lower) != nil || Self.beforeNUL(upper) != nil {
                return "(" + comparison(column(property), .greaterOrEqual, lower, negated: negated) + " AND "
                    + comparison(column(property), .lessOrEqual, upper, negated: negated) + ")"
            }
            return twoValued("\(column(property)) BETWEEN \(bind(lower)) AND \(bind(upper))")
        case .text(let property, let op, let needle, _):
            if needle.unicodeScalars.contains("\u{0}") { return "FALSE" }
            let target = column(property)
            let value = bind(.string(needle))
            switch op {
            case .contains: return twoValued("strpos(\(target), \(value)) > 0")
            case .hasPrefix: return twoValued("starts_with(\(target), \(value))")
            case .hasSuffix: return twoValued("right(\(target), char_length(\(value))) = \(value)")
            }
        case .isNil(let property):
            return "(\(column(property)) IS NULL)"
        case .and(let parts):
            if parts.isEmpty { return "TRUE" }
            return "("
                + (try parts.map { try condition($0, entity, alias, negated: negated) }).joined(separator: " AND ")
                + ")"
        case .or(let parts):
            if parts.isEmpty { return "FALSE" }
            return "("
                + (try parts.map { try condition($0, entity, alias, negated: negated) }).joined(separator: " OR ") + ")"
        case .not(let inner):
            return "(NOT \(try condition(inner, entity, alias, negated: true)))"
        case .relatedOne(let name, let inner):
            let relationship = try self.relationship(name, of: entity)
            let destination = try layout.table(relationship.destination)
            let other = self.alias()
            return
                "EXISTS (SELECT 1 FROM \(destination.name) AS \(other) WHERE \(other).\"id\" = \(column(name)) AND "
                + "\(try condition(inner, destination.entity, other, negated: false)))"
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
            join =
                "FROM \(destination.name) AS \(other) WHERE \(other).\"id\" = \(alias).\(PostgresLayout.column(name))"
        case .inverseReference:
            join =
                "FROM \(destination.name) AS \(other) WHERE "
                + "\(other).\(PostgresLayout.column(relationship.inverse ?? "")) = \(alias).\"id\""
        case .orderedLinks, .links:
            let link = self.alias()
            join =
                "FROM \(layout.linkTable(entity.name, name)) AS \(link) JOIN \(destination.name) AS \(other) ON "
                + "\(other).\"id\" = \(link).target WHERE \(link).owner = \(alias).\"id\""
        case .inverseLinks:
            let link = self.alias()
            join =
                "FROM \(layout.linkTable(relationship.destination, relationship.inverse ?? "")) AS \(link) JOIN \(destination.name) AS \(other) ON \(other).\"id\" = \(link).owner WHERE \(link).target = \(alias).\"id\""
        }
        return "EXISTS (SELECT 1 \(join) AND \(try condition(inner, destination.entity, other, negated: false)))"
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
