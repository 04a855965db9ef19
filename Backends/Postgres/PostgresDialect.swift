import StrataSQL
import StrataStorage

/// PostgreSQL's SQL: `$n` placeholders, `TRUE`/`FALSE`, `COALESCE`, `IS DISTINCT FROM`, and sort
/// keys that name their null ordering (`NULLS FIRST` ascending, `NULLS LAST` descending), so SQL
/// order is the contract's. Text compares in `COLLATE "C"` (UTF-8 byte order). PostgreSQL text
/// cannot hold U+0000, and stored text never does (the engine refuses it), so a constant
/// containing it is rewritten to the comparison it is equivalent to over such text rather than sent.
enum PostgresDialect: SQLDialect {
    static func placeholder(_ index: Int) -> String { "$\(index)" }
    static let trueLiteral = "TRUE"
    static let falseLiteral = "FALSE"
    static func falseIfNull(_ comparison: String) -> String { "COALESCE(\(comparison), FALSE)" }
    static func distinct(_ left: String, _ right: String) -> String { "\(left) IS DISTINCT FROM \(right)" }
    static func column(_ property: String) -> String { PostgresLayout.column(property) }
    static func sortKey(_ column: String, ascending: Bool) -> String {
        "\(column) \(ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
    }

    static func paging(limit: Int?, offset: Int, _ translator: inout SQLTranslator<Self>) -> String {
        var sql = ""
        if let limit { sql += " LIMIT \(translator.bind(.int(Int64(limit))))" }
        if offset > 0 { sql += " OFFSET \(translator.bind(.int(Int64(offset))))" }
        return sql
    }

    /// Text up to its first U+0000, when it has one.
    static func beforeNUL(_ value: Value) -> String? {
        guard case .string(let text) = value, let nul = text.unicodeScalars.firstIndex(of: "\u{0}") else { return nil }
        return String(text.unicodeScalars[..<nul])
    }

    static func compare(
        _ column: String, _ op: ComparisonOperator, _ constant: Value, _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        guard let prefix = beforeNUL(constant) else {
            return plainCompare(column, op, constant, negated: negated, &translator)
        }
        // Over text without U+0000, `x < "a\0b"` is `x <= "a"` and `x > "a\0b"` is `x > "a"`;
        // nothing equals it.
        switch op {
        case .equal: return falseLiteral
        case .notEqual: return trueLiteral
        case .less, .lessOrEqual: return twoValued("\(column) <= \(translator.bind(.string(prefix)))", negated: negated)
        case .greater, .greaterOrEqual:
            return twoValued("\(column) > \(translator.bind(.string(prefix)))", negated: negated)
        }
    }

    static func inList(
        _ column: String, _ constants: [Value], _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        let storable = constants.filter { beforeNUL($0) == nil }
        guard !storable.isEmpty else { return falseLiteral }
        let list = storable.map { translator.bind($0) }
        return twoValued("\(column) IN (\(list.joined(separator: ", ")))", negated: negated)
    }

    static func between(
        _ column: String, _ lower: Value, _ upper: Value, negated: Bool, _ translator: inout SQLTranslator<Self>
    ) -> String {
        guard beforeNUL(lower) != nil || beforeNUL(upper) != nil else {
            return twoValued(
                "\(column) BETWEEN \(translator.bind(lower)) AND \(translator.bind(upper))", negated: negated)
        }
        let low = compare(column, .greaterOrEqual, lower, [], negated: negated, &translator)
        let high = compare(column, .lessOrEqual, upper, [], negated: negated, &translator)
        return "(\(low) AND \(high))"
    }

    static func text(
        _ column: String, _ op: TextOperator, _ needle: String, _ options: TextOptions, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        if needle.unicodeScalars.contains("\u{0}") { return falseLiteral }
        let value = translator.bind(.string(needle))
        switch op {
        case .contains: return twoValued("strpos(\(column), \(value)) > 0", negated: negated)
        case .hasPrefix: return twoValued("starts_with(\(column), \(value))", negated: negated)
        case .hasSuffix: return twoValued("right(\(column), char_length(\(value))) = \(value)", negated: negated)
        }
    }
}
