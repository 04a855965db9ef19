import StrataSQL
import StrataStorage

/// Arrays, sets, dictionaries and documents in SQLite: columns of canonical JSON text, read with
/// SQLite's JSON functions.
///
/// Element constants are bound as one JSON array and read back with `json_each`, so a stored
/// element and a constant pass through the same JSON parser and compare alike (numbers
/// numerically, text by bytes). An indexed array or set keeps a table of its elements
/// (`"Entity.attribute.elements"`: value, owner), filled by triggers on the entity's table and
/// indexed on (value, owner): a contains test reads the owners from that index. Document paths go
/// through `strata_path`, the engine's own comparison (``SQLiteFunctions``).
extension SQLiteDialect {
    static func elements(
        _ column: String, _ test: ElementTest, _ attribute: AttributeDescription, elementTable: String?, id: String,
        negated: Bool, _ translator: inout SQLTranslator<Self>
    ) -> String {
        func members(_ values: [Value]) -> String {
            let list = translator.bind(.string(CollectionForm.text(.array(values)) ?? "[]"))
            let candidates = "(SELECT value FROM json_each(\(list)))"
            if attribute.type == .dictionary {
                return "EXISTS (SELECT 1 FROM json_each(\(column)) AS e WHERE e.key IN \(candidates))"
            }
            if let elementTable {
                return "\(id) IN (SELECT e.owner FROM \(elementTable) AS e WHERE e.value IN \(candidates))"
            }
            return "EXISTS (SELECT 1 FROM json_each(\(column)) AS e WHERE e.value IN \(candidates))"
        }
        switch test {
        case .contains(let value): return members([value])
        case .containsAny(let values): return values.isEmpty ? falseLiteral : members(values)
        case .count(let op, let count):
            let length =
                attribute.type == .dictionary
                ? "(SELECT count(*) FROM json_each(\(column)))" : "json_array_length(\(column))"
            let sqlOp = op == .equal ? "=" : op.rawValue
            return "(\(column) IS NOT NULL AND \(length) \(sqlOp) \(translator.bind(.int(Int64(count)))))"
        }
    }

    static func documentPath(
        _ column: String, _ path: [String], _ op: ComparisonOperator, _ constant: Value, negated: Bool,
        _ translator: inout SQLTranslator<Self>
    ) -> String {
        let pathText = CollectionForm.text(.array(path.map(Value.string))) ?? "[]"
        var constantText = ""
        CollectionForm.scalar(constant, into: &constantText)
        let call =
            "strata_path(\(column), \(translator.bind(.string(pathText))), \(translator.bind(.string(constantText))))"
        return op == .notEqual ? "(NOT \(call))" : "(\(call) = 1)"
    }
}
