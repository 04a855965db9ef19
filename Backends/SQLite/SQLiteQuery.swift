import GRDB
import StrataSQL
import StrataStorage

/// SQLite's side of the shared SQL translator (`SQLTranslator`, the `StrataSQL` target): fetches,
/// counts and aggregates as one statement each, with SQLite's arguments.
struct SQLiteQuery {
    let layout: SQLiteLayout
    private var translator: SQLTranslator<SQLiteDialect>

    init(layout: SQLiteLayout) {
        self.layout = layout
        translator = SQLTranslator(layout: layout)
    }

    /// The bound values, as SQLite takes them.
    var arguments: [DatabaseValue] { translator.arguments.map(SQLiteValues.databaseValue) }

    mutating func select(_ plan: FetchPlan) throws -> String { try translator.select(plan) }

    mutating func count(_ plan: FetchPlan) throws -> String { try translator.count(plan) }

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
        sql += try translator.whereClause(plan.predicate, try layout.sqlTable(plan.entity))
        if let group = plan.groupBy { sql += " GROUP BY t0.\(quoted(group)) ORDER BY t0.\(quoted(group)) ASC" }
        return sql
    }
}

extension SQLiteLayout: SQLLayout {
    func sqlTable(_ entity: String) throws -> SQLTable {
        let table = try table(entity)
        return SQLTable(entity: table.entity, name: table.name, selectList: table.selectList)
    }
}
