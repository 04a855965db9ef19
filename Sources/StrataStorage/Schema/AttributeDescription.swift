/// One stored attribute of an entity. Composite attributes appear as one description per field,
/// named `composite.field`, so every field is queryable, indexable and constrainable.
public struct AttributeDescription: Sendable {
    /// The stored name (composite fields as `outer.inner`).
    public var name: String
    /// The stored kind.
    public var type: AttributeType
    /// Whether nil is allowed.
    public var isOptional: Bool
    /// Used when an untyped insert omits the attribute, and when a stored record lacks it.
    public var defaultValue: Value?
    /// Whether backends index it.
    public var isIndexed: Bool
    /// For enum attributes: the raw values of the cases; any other value fails validation.
    public var allowedValues: [Value]?
    /// Rules a non-nil value must pass.
    public var rules: [ValidationRule]
    /// The name this attribute had in the previous schema version: a migration moves its values
    /// instead of dropping one attribute and adding another.
    public var renamedFrom: String?
    /// Set when the engine keeps the value itself (a date the save stamps; see ``AutomaticTimestamp``).
    public var timestamp: AutomaticTimestamp?
    /// For arrays, sets and dictionaries: the kind of their elements (a scalar type; for a
    /// dictionary, of its values — its keys are text). `nil` for every other type.
    public var element: AttributeType?
    /// Set when the engine computes the value (see ``Derivation``): callers read it, never write it.
    public var derivation: Derivation?

    /// An untyped attribute.
    public init(
        name: String, type: AttributeType, isOptional: Bool = false, defaultValue: Value? = nil,
        isIndexed: Bool = false, allowedValues: [Value]? = nil, rules: [ValidationRule] = [],
        renamedFrom: String? = nil,
        element: AttributeType? = nil
    ) {
        self.element = element
        self.renamedFrom = renamedFrom
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.allowedValues = allowedValues
        self.rules = rules
    }
}
