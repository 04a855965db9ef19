import StrataSQL
import StrataStorage

/// Arrays, sets, dictionaries and documents in PostgreSQL: `jsonb` columns, tested with `jsonb`'s
/// operators, whose equality is the contract's (numbers numerically, text by code points):
/// contains is `@>` with a one-element array (answered by the GIN index of an indexed array or
/// set), a dictionary's keys `jsonb_exists`, a count `jsonb_array_length`, and a document's path
/// `#>` compared with a `jsonb` scalar.
extension PostgresDialect {
    static func elements(
        _ column: String, _ test: ElementTest, _ attribute: AttributeDescription, elementTable: String?, id: String,
        negated: Bool, _ translator: inout SQLTranslator<Self>
    ) -> String {
        func members(_ values: [Value]) -> String {
            guard !values.isEmpty else { return falseLiteral }
            let parts = values.map { value -> String in
                if attribute.type == .dictionary { return "jsonb_exists(\(column), \(translator.bind(value)))" }
                return "\(column) @> \(translator.bind(.array([value])))"
            }
            // Plain under no `NOT` (an index can answer `@>` only there), two-valued under one.
            return twoValued(parts.joined(separator: " OR "), negated: negated)
        }
        switch test {
        case .contains(let value): return members([value])
        case .containsAny(let values): return members(values)
        case .count(let op, let count):
            let length =
                attribute.type == .dictionary
                ? "(SELECT count(*) FROM jsonb_object_keys(\(column)))" : "jsonb_array_length(\(column))"
            let sqlOp = op == .equal ? "=" : op == .notEqual ? "<>" : op.rawValue
            return twoValued(
                "\(column) IS NOT NULL AND \(length) \(sqlOp) \(translator.bind(.int(Int64(count))))", negated: negated)
        }
    }

    static func documentPath(
        _ column: String, _ path: [String], _ op: ComparisonOperator, _ constant: Value, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        let keys = path.map { translator.bind(.string($0)) }.joined(separator: ", ")
        let found = "(\(column) #> ARRAY[\(keys)]::text[])"
        let equal: String
        if constant.isNull {
            equal = "(\(found) IS NULL OR \(found) = 'null'::jsonb)"
        } else {
            var text = ""
            CollectionForm.scalar(constant, into: &text)
            equal = "\(found) = \(translator.bind(.document(text)))"
        }
        // `!=` holds where `==` does not, a missing field included: two-valued before the negation.
        return op == .notEqual ? "(NOT \(falseIfNull(equal)))" : twoValued(equal, negated: negated)
    }
}
