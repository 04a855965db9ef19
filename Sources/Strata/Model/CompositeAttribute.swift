/// A nested struct stored as one attribute per field (`address.city`, `address.street`), so its
/// fields are queryable, indexable and constrainable.
///
/// ```swift
/// struct Address: CompositeAttribute {
///     var city: String
///     var street: String?
///     static let fields: [CompositeField<Address>] = [.field(\.city), .field(\.street)]
/// }
/// ```
public protocol CompositeAttribute: Codable, Sendable {
    static var fields: [CompositeField<Self>] { get }
}

/// One field of a ``CompositeAttribute``.
public struct CompositeField<Composite>: Sendable {
    let attribute: Result<AttributeDescription, StrataError>
    /// The field's stored name (within the composite) and how to read its value off a composite.
    let reader: (name: String, read: @Sendable (Composite) -> Value)?

    /// A scalar, optional or enum field.
    public static func field<V: AttributeConvertible>(
        _ keyPath: any KeyPath<Composite, V> & Sendable, name: String? = nil, indexed: Bool = false,
        rules: [ValidationRule] = []
    ) -> CompositeField {
        let attribute = EntityMember<Composite>.describeAttribute(
            keyPath, type: V.self, name: name, default: nil, indexed: indexed, rules: rules)
        let reader = (try? attribute.get()).map { description -> (name: String, read: @Sendable (Composite) -> Value) in
            // A stored field is read at its offset (see `ValueEncoder.reading`).
            if let offset = MemoryLayout<Composite>.offset(of: keyPath) {
                return (
                    description.name,
                    { composite in
                        withUnsafeBytes(of: composite) { $0.load(fromByteOffset: offset, as: V.self) }.attributeValue
                    }
                )
            }
            return (description.name, { composite in composite[keyPath: keyPath].attributeValue })
        }
        return CompositeField(attribute: attribute, reader: reader)
    }
}
