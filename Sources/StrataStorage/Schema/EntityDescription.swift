/// The untyped description of one entity: what backends create storage for and what the engine enforces.
///
/// A value type whose stored fields live in one shared, immutable box: passing or copying a
/// description costs one reference count, not one per field (the engine hands descriptions to
/// every record of a save). Setting a field copies the box.
public struct EntityDescription: Sendable {
    /// The fields, with the lookups derived from them.
    struct Fields: Sendable {
        var name: String
        var idKind: RecordID.Kind
        var attributes: [AttributeDescription]
        var relationships: [RelationshipDescription]
        var indexes: [[String]]
        var uniqueConstraints: [[String]]
        var recordChecks: [RecordCheck]
        var renamedFrom: String?
        var searchIndexes: [SearchIndexDescription] = []
        var attributeIndex: [String: Int] = [:]
        var relationshipIndex: [String: Int] = [:]
        var layout: RecordLayout = .empty
        var timestamps: [(name: String, kind: AutomaticTimestamp)] = []
        var ownDerivations: [(slot: Int, attribute: String, derivation: Derivation)] = []
        var countedRelationships: [String: [Int]] = [:]
    }

    /// Immutable, so sharing it between copies and tasks is safe.
    final class Storage: Sendable {
        let fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var storage: Storage

    private mutating func change(rebuilding: Bool = false, _ body: (inout Fields) -> Void) {
        var fields = storage.fields
        body(&fields)
        if rebuilding { Self.rebuildLookups(&fields) }
        storage = Storage(fields)
    }

    /// The entity name (a record's `entity`).
    public var name: String {
        get { storage.fields.name }
        set { change { $0.name = newValue } }
    }
    /// The kind of ID its records use.
    public var idKind: RecordID.Kind {
        get { storage.fields.idKind }
        set { change { $0.idKind = newValue } }
    }
    /// Stored attributes, composite fields flattened (`address.city`).
    public var attributes: [AttributeDescription] {
        get { storage.fields.attributes }
        set { change(rebuilding: true) { $0.attributes = newValue } }
    }
    /// Relationships, to-one and to-many.
    public var relationships: [RelationshipDescription] {
        get { storage.fields.relationships }
        set { change(rebuilding: true) { $0.relationships = newValue } }
    }
    /// Non-unique indexes, each over one or more attribute or to-one names.
    public var indexes: [[String]] {
        get { storage.fields.indexes }
        set { change { $0.indexes = newValue } }
    }
    /// Unique constraints, each over one or more attribute or to-one names. A tuple containing a
    /// null never clashes (SQL semantics).
    public var uniqueConstraints: [[String]] {
        get { storage.fields.uniqueConstraints }
        set { change { $0.uniqueConstraints = newValue } }
    }
    /// Record-level checks (typed closures from a model declaration), run after attribute rules.
    public var recordChecks: [RecordCheck] {
        get { storage.fields.recordChecks }
        set { change { $0.recordChecks = newValue } }
    }
    /// Full-text indexes over its text attributes (see ``SearchIndexDescription``).
    public var searchIndexes: [SearchIndexDescription] {
        get { storage.fields.searchIndexes }
        set { change { $0.searchIndexes = newValue } }
    }
    /// The full-text index with this name.
    public func searchIndex(_ name: String) -> SearchIndexDescription? {
        storage.fields.searchIndexes.first { $0.name == name }
    }
    /// The name this entity had in the previous schema version (a migration renames, not drops and adds).
    public var renamedFrom: String? {
        get { storage.fields.renamedFrom }
        set { change { $0.renamedFrom = newValue } }
    }

    /// An untyped entity; ``Schema`` checks it.
    public init(
        name: String, idKind: RecordID.Kind = .uuid, attributes: [AttributeDescription] = [],
        relationships: [RelationshipDescription] = [], indexes: [[String]] = [],
        uniqueConstraints: [[String]] = [], recordChecks: [RecordCheck] = [], renamedFrom: String? = nil,
        searchIndexes: [SearchIndexDescription] = []
    ) {
        var fields = Fields(
            name: name, idKind: idKind, attributes: attributes, relationships: relationships, indexes: indexes,
            uniqueConstraints: uniqueConstraints, recordChecks: recordChecks, renamedFrom: renamedFrom,
            searchIndexes: searchIndexes)
        Self.rebuildLookups(&fields)
        storage = Storage(fields)
    }

    /// The slots of this entity's records: `storedPropertyNames` in order, shared with every
    /// other description and model declaration of the same names.
    public var layout: RecordLayout { storage.fields.layout }
    /// The attributes the engine stamps at save (see ``AutomaticTimestamp``), in declaration order.
    public var timestamps: [(name: String, kind: AutomaticTimestamp)] { storage.fields.timestamps }

    /// Attributes computed from the record's own values (folded text, functions): slot and how.
    public var ownDerivations: [(slot: Int, attribute: String, derivation: Derivation)] {
        storage.fields.ownDerivations
    }
    /// Attributes that count a to-many, by the to-many's name: the slots to set.
    public var countedRelationships: [String: [Int]] { storage.fields.countedRelationships }

    private static func rebuildLookups(_ fields: inout Fields) {
        let attributes = fields.attributes
        fields.layout = .shared(
            attributes.map(\.name) + fields.relationships.filter(\.isToOne).map(\.name))
        fields.timestamps = attributes.compactMap { attribute in attribute.timestamp.map { (attribute.name, $0) } }
        fields.ownDerivations = []
        fields.countedRelationships = [:]
        for (slot, attribute) in attributes.enumerated() {
            guard let derivation = attribute.derivation else { continue }
            if case .count(let relationship) = derivation.source {
                fields.countedRelationships[relationship, default: []].append(slot)
            } else {
                fields.ownDerivations.append((slot, attribute.name, derivation))
            }
        }
        fields.attributeIndex = Dictionary(
            attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        fields.relationshipIndex = Dictionary(
            fields.relationships.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The attribute with this name (composite fields as `outer.inner`).
    public func attribute(_ name: String) -> AttributeDescription? {
        storage.fields.attributeIndex[name].map { storage.fields.attributes[$0] }
    }

    /// The relationship with this name.
    public func relationship(_ name: String) -> RelationshipDescription? {
        storage.fields.relationshipIndex[name].map { storage.fields.relationships[$0] }
    }

    /// To-one relationships (stored as references in `values`).
    public var toOneRelationships: [RelationshipDescription] { relationships.filter(\.isToOne) }

    /// Names stored in a record's `values`: attributes and to-one references.
    public var storedPropertyNames: [String] {
        attributes.map(\.name) + relationships.filter(\.isToOne).map(\.name)
    }

    /// Whether `name` is an attribute, or a to-one reference (both are stored values).
    public func isStoredProperty(_ name: String) -> Bool {
        storage.fields.attributeIndex[name] != nil || relationship(name)?.isToOne == true
    }

    /// Whether predicates and sort keys may name `name`: a stored property or `id`.
    public func isQueryableProperty(_ name: String) -> Bool {
        name == "id" || isStoredProperty(name)
    }

    /// Attributes and to-one references that backends should index: declared indexes, unique
    /// constraints and every reference (delete rules and inverse upkeep look referrers up).
    public var indexedProperties: Set<String> {
        var names = Set(attributes.filter(\.isIndexed).map(\.name))
        for index in indexes { names.formUnion(index) }
        for constraint in uniqueConstraints { names.formUnion(constraint) }
        names.formUnion(relationships.filter(\.isToOne).map(\.name))
        // An indexed array or set is indexed by its elements (``elementIndexedAttributes``), not as one key.
        names.subtract(attributes.filter { !$0.type.isScalar }.map(\.name))
        return names
    }

    /// Indexed arrays and sets: backends that can index their elements (for
    /// ``ElementTest/contains(_:)``) keep one entry per element.
    public var elementIndexedAttributes: [AttributeDescription] {
        attributes.filter {
            ($0.type == .array || $0.type == .set) && ($0.isIndexed || indexes.contains([$0.name]))
        }
    }
}

/// A named record-level validation: `nil` when the record passes, otherwise the failing property and why.
public struct RecordCheck: Sendable {
    /// The entity name (a record's `entity`).
    public var name: String
    /// The property the check's error names, if any.
    public var property: String?
    /// Returns why the record fails, or `nil`.
    public var check: @Sendable (Record) -> String?

    /// A named check, reported against `property`.
    public init(name: String, property: String?, check: @escaping @Sendable (Record) -> String?) {
        self.name = name
        self.property = property
        self.check = check
    }
}
