import PostgresNIO
import StrataSQL
import StrataStorage

/// PostgreSQL's side of the shared SQL translator (`SQLTranslator`, the `StrataSQL` target):
/// fetches, counts and aggregates as one statement each, with postgres-nio's bindings.
struct PostgresFetchSQL {
    let layout: PostgresLayout
    private var translator: SQLTranslator<PostgresDialect>

    /// What this backend evaluates: everything but case- and diacritic-insensitive text, whose
    /// folding is the engine's own (the engine evaluates plans that use it).
    static let capabilities = FetchCapabilities(
        // Listed, not `allCases`: a feature added later is the engine's until this backend's SQL
        // answers it. Case- and diacritic-insensitive text is the engine's (one folding function).
        predicateFeatures: [
            .equality, .ordering, .inList, .between, .text, .isNil, .logic, .toOne, .toMany, .elements, .documentPaths,
        ],
        sorting: true, paging: true, counting: true, aggregating: true)

    init(layout: PostgresLayout) {
        self.layout = layout
        translator = SQLTranslator(layout: layout)
    }

    /// The bound values, as postgres-nio takes them.
    var binds: PostgresBindings {
        var binds = PostgresBindings()
        for value in translator.arguments { binds.append(strata: value) }
        return binds
    }

    mutating func select(_ plan: FetchPlan) throws -> String { try translator.select(plan) }

    mutating func count(_ plan: FetchPlan) throws -> String { try translator.count(plan) }

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
        sql += try translator.whereClause(plan.predicate, try layout.sqlTable(plan.entity))
        if let group = plan.groupBy {
            sql +=
                " GROUP BY t0.\(PostgresLayout.column(group)) ORDER BY t0.\(PostgresLayout.column(group)) ASC "
                + "NULLS FIRST"
        }
        return sql
    }
}

extension PostgresLayout: SQLLayout {
    func sqlTable(_ entity: String) throws -> SQLTable {
        let table = try table(entity)
        return SQLTable(entity: table.entity, name: table.name, selectList: table.selectList)
    }
}
