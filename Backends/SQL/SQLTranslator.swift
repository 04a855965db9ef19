import StrataStorage

/// A table of an SQL layout, as the translator needs it.
package struct SQLTable: Sendable {
    package let entity: EntityDescription
    /// The quoted (and, where the dialect has them, qualified) name.
    package let name: String
    /// The stored columns, `t0.`-qualified, in the order a row is decoded.
    package let selectList: String

    package init(entity: EntityDescription, name: String, selectList: String) {
        self.entity = entity
        self.name = name
        self.selectList = selectList
    }
}

/// Where an SQL backend keeps each entity and each link list.
package protocol SQLLayout {
    func sqlTable(_ entity: String) throws -> SQLTable
    /// The quoted link table of `entity`'s `relationship`.
    func linkTable(_ entity: String, _ relationship: String) -> String
    /// The quoted table of an indexed array's or set's elements (`value`, `owner`), where the
    /// dialect keeps one (SQLite); `nil` elsewhere.
    func elementTable(_ entity: String, _ attribute: String) -> String?
}

extension SQLLayout {
    package func elementTable(_ entity: String, _ attribute: String) -> String? { nil }
}

/// Translates a ``FetchPlan`` (and an ``AggregatePlan``'s condition) into one SQL statement, the
/// same way for every dialect. Identifiers come from the schema and are quoted; every value is a
/// bound argument (``arguments``), never text in the SQL.
///
/// Conditions are written plainly — `col = ?`, `col IN (…)`, `col BETWEEN ? AND ?`, which an
/// index answers — and made two-valued only under a `NOT`, where a NULL must count as false before
/// it is negated. To-one conditions are `EXISTS` over the destination; `any`/`none` are
/// `EXISTS`/`NOT EXISTS` over the relationship's storage (a reference, the inverse's reference, or
/// a link table).
package struct SQLTranslator<Dialect: SQLDialect> {
    let layout: any SQLLayout
    /// The values bound, in placeholder order.
    package private(set) var arguments: [Value] = []
    private var aliases = 0

    package init(layout: any SQLLayout) {
        self.layout = layout
    }

    /// Binds `value`; returns its placeholder.
    package mutating func bind(_ value: Value) -> String {
        arguments.append(value)
        return Dialect.placeholder(arguments.count)
    }

    package mutating func select(_ plan: FetchPlan) throws -> String {
        let table = try layout.sqlTable(plan.entity)
        var sql = "SELECT \(table.selectList) FROM \(table.name) AS t0" + (try whereClause(plan.predicate, table))
        let keys = plan.sort.map { Dialect.sortKey("t0.\(Dialect.column($0.property))", ascending: $0.ascending) }
        sql += " ORDER BY " + (keys + [Dialect.idSortKey(plan, table.entity)]).joined(separator: ", ")
        if plan.limit != nil || plan.offset > 0 { sql += Dialect.paging(limit: plan.limit, offset: plan.offset, &self) }
        return sql
    }

    package mutating func count(_ plan: FetchPlan) throws -> String {
        let table = try layout.sqlTable(plan.entity)
        return "SELECT count(*) FROM \(table.name) AS t0" + (try whereClause(plan.predicate, table))
    }

    /// ` WHERE …` for `predicate` over `table` (aliased `t0`), or nothing.
    package mutating func whereClause(_ predicate: FilterExpression?, _ table: SQLTable) throws -> String {
        guard let predicate else { return "" }
        return " WHERE " + (try condition(predicate, table.entity, "t0", negated: false))
    }

    private mutating func alias() -> String {
        aliases += 1
        return "t\(aliases)"
    }

    /// - Parameter negated: Whether a `NOT` encloses the condition, so a NULL must read as false.
    private mutating func condition(
        _ expression: FilterExpression, _ entity: EntityDescription, _ alias: String, negated: Bool
    ) throws -> String {
        func column(_ property: String) -> String { "\(alias).\(Dialect.column(property))" }
        switch expression {
        case .constant(let flag):
            return flag ? Dialect.trueLiteral : Dialect.falseLiteral
        case .compare(let property, let op, let constant, let options):
            guard !constant.isNull else {
                switch op {
                case .equal: return "(\(column(property)) IS NULL)"
                case .notEqual: return "(\(column(property)) IS NOT NULL)"
                default: return Dialect.falseLiteral
                }
            }
            return Dialect.compare(column(property), op, constant, options, negated: negated, &self)
        case .inList(let property, let constants, let options):
            let nonNull = constants.filter { !$0.isNull }
            var parts: [String] = []
            if !nonNull.isEmpty {
                let list = Dialect.inList(column(property), nonNull, options, negated: negated, &self)
                if list != Dialect.falseLiteral { parts.append(list) }
            }
            if nonNull.count != constants.count { parts.append("(\(column(property)) IS NULL)") }
            return parts.isEmpty ? Dialect.falseLiteral : "(" + parts.joined(separator: " OR ") + ")"
        case .between(let property, let lower, let upper):
            if lower.isNull || upper.isNull { return Dialect.falseLiteral }
            return Dialect.between(column(property), lower, upper, negated: negated, &self)
        case .text(let property, let op, let needle, let options):
            return Dialect.text(column(property), op, needle, options, negated: negated, &self)
        case .isNil(let property):
            return "(\(column(property)) IS NULL)"
        case .elements(let property, let test):
            guard let attribute = entity.attribute(property) else {
                throw StrataError(
                    .unknownProperty, entity: entity.name, property: property,
                    "\(property) is not an attribute of \(entity.name)")
            }
            let index = attribute.isIndexed ? layout.elementTable(entity.name, property) : nil
            return Dialect.elements(
                column(property), test, attribute, elementTable: index, id: "\(alias).\"id\"", negated: negated, &self)
        case .documentPath(let property, let path, let op, let constant):
            return Dialect.documentPath(column(property), path, op, constant, negated: negated, &self)
        case .search(let index, _):
            // The engine answers searches from its own index and never sends one here.
            throw StrataError(
                .invalidQuery, entity: entity.name, "the full-text search of \(index) is the engine's, not SQL's")
        case .and(let parts):
            return try junction(parts, " AND ", empty: Dialect.trueLiteral, entity, alias, negated: negated)
        case .or(let parts):
            return try junction(parts, " OR ", empty: Dialect.falseLiteral, entity, alias, negated: negated)
        case .not(let inner):
            return "(NOT \(try condition(inner, entity, alias, negated: true)))"
        case .relatedOne(let name, let inner):
            let relationship = try self.relationship(name, of: entity)
            let destination = try layout.sqlTable(relationship.destination)
            let other = self.alias()
            // EXISTS is never NULL; inside it, a NULL condition drops the row, as false would.
            return "EXISTS (SELECT 1 FROM \(destination.name) AS \(other) WHERE \(other).\"id\" = \(column(name)) AND "
                + "\(try condition(inner, destination.entity, other, negated: false)))"
        case .anyRelated(let name, let inner):
            return try exists(name, inner, entity, alias)
        case .noneRelated(let name, let inner):
            return "(NOT \(try exists(name, inner, entity, alias)))"
        }
    }

    private mutating func junction(
        _ parts: [FilterExpression], _ separator: String, empty: String, _ entity: EntityDescription, _ alias: String,
        negated: Bool
    ) throws -> String {
        guard !parts.isEmpty else { return empty }
        let conditions = try parts.map { try condition($0, entity, alias, negated: negated) }
        return "(" + conditions.joined(separator: separator) + ")"
    }

    private mutating func exists(
        _ name: String, _ inner: FilterExpression, _ entity: EntityDescription, _ alias: String
    ) throws -> String {
        let relationship = try self.relationship(name, of: entity)
        let destination = try layout.sqlTable(relationship.destination)
        let other = self.alias()
        let join: String
        switch relationship.storage {
        case .reference:
            join = "FROM \(destination.name) AS \(other) WHERE \(other).\"id\" = \(alias).\(Dialect.column(name))"
        case .inverseReference:
            let inverse = Dialect.column(relationship.inverse ?? "")
            join = "FROM \(destination.name) AS \(other) WHERE \(other).\(inverse) = \(alias).\"id\""
        case .orderedLinks, .links:
            let link = self.alias()
            join =
                "FROM \(layout.linkTable(entity.name, name)) AS \(link) JOIN \(destination.name) AS \(other) ON "
                + "\(other).\"id\" = \(link).target WHERE \(link).owner = \(alias).\"id\""
        case .inverseLinks:
            let link = self.alias()
            let table = layout.linkTable(relationship.destination, relationship.inverse ?? "")
            join =
                "FROM \(table) AS \(link) JOIN \(destination.name) AS \(other) ON \(other).\"id\" = \(link).owner "
                + "WHERE \(link).target = \(alias).\"id\""
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
