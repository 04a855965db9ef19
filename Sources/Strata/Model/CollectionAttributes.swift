import Foundation

/// Arrays of scalars store as one attribute: order and duplicates kept (`[String]`, `[Int]`,
/// `[Decimal]`, …). Query them with `Filter.contains(_:element:)`, `containsAny` and `count`.
extension Array: AttributeConvertible where Element: AttributeConvertible {
    public static var attributeType: AttributeType { .array }
    public static var elementAttributeType: AttributeType? { scalarElement(Element.self) }
    public var attributeValue: StrataStorage.Value { .array(map(\.attributeValue)) }
    public static func fromAttributeValue(_ value: StrataStorage.Value) -> [Element]? {
        guard case .array(let elements) = value else { return nil }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let typed = Element.fromAttributeValue(element) else { return nil }
            result.append(typed)
        }
        return result
    }
}

/// Sets of scalars store as one attribute, sorted in the contract's order without duplicates.
extension Set: AttributeConvertible where Element: AttributeConvertible {
    public static var attributeType: AttributeType { .set }
    public static var elementAttributeType: AttributeType? { scalarElement(Element.self) }
    public var attributeValue: StrataStorage.Value {
        .array(ValueRules.sortedUnique(map(\.attributeValue)))
    }
    public static func fromAttributeValue(_ value: StrataStorage.Value) -> Set<Element>? {
        [Element].fromAttributeValue(value).map(Set.init)
    }
}

/// Dictionaries from text to scalars store as one attribute (`[String: Int]`, …).
extension Dictionary: AttributeConvertible where Key == String, Value: AttributeConvertible {
    public static var attributeType: AttributeType { .dictionary }
    public static var elementAttributeType: AttributeType? { scalarElement(Value.self) }
    public var attributeValue: StrataStorage.Value {
        .dictionary(
            Dictionary<String, StrataStorage.Value>(uniqueKeysWithValues: map { ($0.key, $0.value.attributeValue) }))
    }
    public static func fromAttributeValue(_ value: StrataStorage.Value) -> [String: Value]? {
        guard case .dictionary(let entries) = value else { return nil }
        var result: [String: Value] = [:]
        result.reserveCapacity(entries.count)
        for (key, entry) in entries {
            guard let typed = Value.fromAttributeValue(entry) else { return nil }
            result[key] = typed
        }
        return result
    }
}

/// The element kind of a collection, or `nil` when the elements are not plain scalars (optional,
/// or collections themselves), which the schema refuses with `invalidSchema`.
private func scalarElement<E: AttributeConvertible>(_ type: E.Type) -> AttributeType? {
    E.isOptionalAttribute || !E.attributeType.isScalar ? nil : E.attributeType
}

/// A `Codable` value stored as one attribute: canonical JSON (keys sorted), so equal values are
/// equal, and its fields are queryable by equality through their key paths
/// (`\Customer.address.city == "Lisbon"`). Declare conformance and use `.attribute`:
///
/// ```swift
/// struct Preferences: DocumentAttribute {
///     var theme: String
///     var fontSize: Int
/// }
/// ```
///
/// Numbers in a document are JSON numbers: 64-bit integers and doubles; keep an exact decimal in a
/// `decimal` attribute. Documents have equality but no order: they cannot be
/// sorted by, unique or indexed.
public protocol DocumentAttribute: AttributeConvertible, Codable {}

extension DocumentAttribute {
    public static var attributeType: AttributeType { .document }
    /// The canonical JSON text (an unencodable value, such as a NaN double, stores as text the
    /// engine refuses with `validationFailed`).
    public var attributeValue: StrataStorage.Value {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self), let text = String(data: data, encoding: .utf8) else {
            return .document("")
        }
        return .document(CollectionForm.canonicalDocument(text) ?? text)
    }
    public static func fromAttributeValue(_ value: StrataStorage.Value) -> Self? {
        guard case .document(let text) = value else { return nil }
        return try? JSONDecoder().decode(Self.self, from: Data(text.utf8))
    }
}
