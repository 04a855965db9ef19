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

    /// A scalar, optional or enum field.
    public static func field<V: AttributeConvertible>(
        _ keyPath: KeyPath<Composite, V>, name: String? = nil, indexed: Bool = false, rules: [ValidationRule] = []
    ) -> CompositeField {
        CompositeField(attribute: EntityMember<Composite>.describeAttribute(
            keyPath, type: V.self, name: name, default: nil, indexed: indexed, rules: rules))
    }
}
