import Foundation

/// The value rules for arrays, sets, dictionaries and documents, which need the attribute's types:
///
/// - elements are scalars of the attribute's element type, never null, each under the scalar rules
///   (text in NFC, no NaN, no U+0000); an integer in a `Double` collection becomes a double;
/// - a set is stored sorted by the contract's order (``Value/sortOrder(_:_:)``) without duplicates
///   (1.10 and 1.1 are one decimal; "é" composed and decomposed one string);
/// - a dictionary's keys are text in NFC;
/// - a document is canonical JSON (``CollectionForm``); text that is not JSON is refused.
extension ValueRules {
    /// The canonical form of `value` as an attribute of `type` with `element`, or `nil` when it is
    /// already canonical (or not a collection or document: the scalar rules handle those).
    package static func canonical(_ value: Value, type: AttributeType, element: AttributeType?) -> Value? {
        switch (value, type) {
        case (.array(let elements), .array), (.array(let elements), .set):
            var canonical = elements.map { scalarElement($0, element) }
            if type == .set { canonical = sortedUnique(canonical) }
            return canonical == elements ? nil : .array(canonical)
        case (.dictionary(let entries), .dictionary):
            var canonical: [String: Value] = [:]
            for key in entries.keys.sorted() {
                let normalKey = nfc(key)
                if canonical[normalKey] == nil, let item = entries[key] {
                    canonical[normalKey] = scalarElement(item, element)
                }
            }
            return canonical == entries ? nil : .dictionary(canonical)
        case (.document(let text), .document):
            guard let canonical = CollectionForm.canonicalDocument(text), canonical != text else { return nil }
            return .document(canonical)
        default:
            return nil
        }
    }

    private static func scalarElement(_ value: Value, _ element: AttributeType?) -> Value {
        let normal = replacement(for: value) ?? value
        if case .int(let number) = normal, element == .double { return .double(Double(number)) }
        return normal
    }

    /// Elements in the contract's order, equal ones (numerically equal numbers too) kept once.
    package static func sortedUnique(_ elements: [Value]) -> [Value] {
        let sorted = elements.sorted { Value.sortOrder($0, $1) == .ascending }
        var unique: [Value] = []
        unique.reserveCapacity(sorted.count)
        for element in sorted where unique.last.map({ !Value.predicateEquals($0, element) }) ?? true {
            unique.append(element)
        }
        return unique
    }

    /// The first element of `value` that is not of the attribute's element type (a type
    /// mismatch rather than a rule broken), described; `nil` when every element is.
    package static func elementMismatch(of value: Value, type: AttributeType, element: AttributeType?) -> String? {
        let items: [Value]
        switch value {
        case .array(let elements): items = elements
        case .dictionary(let entries): items = entries.keys.sorted().compactMap { entries[$0] }
        default: return nil
        }
        guard let element else { return "\(type.rawValue) has no element type" }
        for item in items where !item.isNull && !(element.accepts(item) && item.isScalar) {
            return "expected elements of type \(element.rawValue), got \(item)"
        }
        return nil
    }

    /// Why `value` cannot be stored as an attribute of `type` with `element`, or `nil` when it can.
    /// `value` is already canonical.
    package static func violation(of value: Value, type: AttributeType, element: AttributeType?) -> String? {
        func elementViolation(_ item: Value, _ what: String) -> String? {
            if item.isNull { return "\(what) may not be nil" }
            guard let element, element.isScalar, element.accepts(item), item.isScalar else {
                return "\(what) \(item) is not \(element.map { "a \($0.rawValue)" } ?? "a scalar")"
            }
            if case .string(let text) = item, text.utf8.contains(0) { return "\(what) may not contain U+0000" }
            return violation(of: item).map { "\(what): \($0)" }
        }
        switch (value, type) {
        case (.array(let elements), .array), (.array(let elements), .set):
            for item in elements { if let reason = elementViolation(item, "an element") { return reason } }
        case (.dictionary(let entries), .dictionary):
            for key in entries.keys.sorted() {
                if key.utf8.contains(0) { return "a key may not contain U+0000" }
                if let reason = elementViolation(entries[key] ?? .null, "the value for \"\(key)\"") { return reason }
            }
        case (.document(let text), .document):
            guard let canonical = CollectionForm.canonicalDocument(text) else { return "a document must be JSON text" }
            // Text may not hold U+0000 anywhere (PostgreSQL's jsonb cannot store it either).
            if canonical.contains("\\u0000") { return "a document may not contain U+0000" }
        default:
            break
        }
        return nil
    }
}
