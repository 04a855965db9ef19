/// One stored attribute of an entity. Composite attributes appear as one description per field,
/// named `composite.field`, so every field is queryable, indexable and constrainable.
///
/// A value type whose fields live in one shared, immutable box, so copying a description (as
/// every walk over an entity's attributes does) costs one reference count; setting a field
/// copies the box.
public struct AttributeDescription: Sendable {
    struct Fields: Sendable {
        var name: String
        var type: AttributeType
        var isOptional: Bool
        var defaultValue: Value?
        var isIndexed: Bool
        var allowedValues: [Value]?
        var rules: [ValidationRule]
        var renamedFrom: String?
        var timestamp: AutomaticTimestamp?
        var element: AttributeType?
        var derivation: Derivation?
    }

    /// Immutable, so sharing it between copies and tasks is safe.
    final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    private mutating func change(_ body: (inout Fields) -> Void) {
        var fields = storage.fields
        body(&fields)
        storage = Storage(fields)
    }

    /// The stored name (composite fields as `outer.inner`).
    public var name: String {
        get { storage.fields.name }
        set { change { $0.name = newValue } }
    }
    /// The stored kind.
    public var type: AttributeType {
        get { storage.fields.type }
        set { change { $0.type = newValue } }
    }
    /// Whether nil is allowed.
    public var isOptional: Bool {
        get { storage.fields.isOptional }
        set { change { $0.isOptional = newValue } }
    }
    /// Used when an untyped insert omits the attribute, and when a stored record lacks it.
    public var defaultValue: Value? {
        get { storage.fields.defaultValue }
        set { change { $0.defaultValue = newValue } }
    }
    /// Whether backends index it.
    public var isIndexed: Bool {
        get { storage.fields.isIndexed }
        set { change { $0.isIndexed = newValue } }
    }
    /// For enum attributes: the raw values of the cases; any other value fails validation.
    public var allowedValues: [Value]? {
        get { storage.fields.allowedValues }
        set { change { $0.allowedValues = newValue } }
    }
    /// Rules a non-nil value must pass.
    public var rules: [ValidationRule] {
        get { storage.fields.rules }
        set { change { $0.rules = newValue } }
    }
    /// The name this attribute had in the previous schema version: a migration moves its values
    /// instead of dropping one attribute and adding another.
    public var renamedFrom: String? {
        get { storage.fields.renamedFrom }
        set { change { $0.renamedFrom = newValue } }
    }
    /// Set when the engine keeps the value itself (a date the save stamps; see ``AutomaticTimestamp``).
    public var timestamp: AutomaticTimestamp? {
        get { storage.fields.timestamp }
        set { change { $0.timestamp = newValue } }
    }
    /// For arrays, sets and dictionaries: the kind of their elements (a scalar type; for a
    /// dictionary, of its values — its keys are text). `nil` for every other type.
    public var element: AttributeType? {
        get { storage.fields.element }
        set { change { $0.element = newValue } }
    }
    /// Set when the engine computes the value (see ``Derivation``): callers read it, never write it.
    public var derivation: Derivation? {
        get { storage.fields.derivation }
        set { change { $0.derivation = newValue } }
    }

    /// An untyped attribute.
    public init(
        name: String, type: AttributeType, isOptional: Bool = false, defaultValue: Value? = nil,
        isIndexed: Bool = false, allowedValues: [Value]? = nil, rules: [ValidationRule] = [],
        renamedFrom: String? = nil,
        element: AttributeType? = nil
    ) {
        storage = Storage(
            Fields(
                name: name, type: type, isOptional: isOptional, defaultValue: defaultValue, isIndexed: isIndexed,
                allowedValues: allowedValues, rules: rules, renamedFrom: renamedFrom, timestamp: nil,
                element: element, derivation: nil))
    }
}
