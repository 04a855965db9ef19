/// The untyped description of one entity: what backends create storage for and what the engine enforces.
public struct EntityDescription: Sendable {
    /// The entity name (a record's `entity`).
    public var name: String
    /// The kind of ID its records use.
    public var idKind: RecordID.Kind
    /// Stored attributes, composite fields flattened (`address.city`).
    public var attributes: [AttributeDescription] { didSet { rebuildLookups() } }
    /// Relationships, to-one and to-many.
    public var relationships: [RelationshipDescription] { didSet { rebuildLookups() } }
    /// Non-unique indexes, each over one or more attribute or to-one names.
    public var indexes: [[String]]
    /// Unique constraints, each over one or more attribute or to-one names. A tuple containing a
    /// null never clashes (SQL semantics).
    public var uniqueConstraints: [[String]]
    /// Record-level checks (typed closures from a model declaration), run after attribute rules.
    public var recordChecks: [RecordCheck]
    /// The name this entity had in the previous schema version (a migration renames, not drops and adds).
    public var renamedFrom: String?

    /// An untyped entity; ``Schema`` checks it.
    public init(
        name: String, idKind: RecordID.Kind = .uuid, attributes: [AttributeDescription] = [],
        relationships: [RelationshipDescription] = [], indexes: [[String]] = [],
        uniqueConstraints: [[String]] = [], recordChecks: [RecordCheck] = [], renamedFrom: String? = nil
    ) {
        self.renamedFrom = renamedFrom
        self.name = name
        self.idKind = idKind
        self.attributes = attributes
        self.relationships = relationships
        self.indexes = indexes
        self.uniqueConstraints = uniqueConstraints
        self.recordChecks = recordChecks
        rebuildLookups()
    }

    private var attributeIndex: [String: Int] = [:]
    private var relationshipIndex: [String: Int] = [:]
    /// The slots of this entity's records: `storedPropertyNames` in order, shared with every
    /// other description and model declaration of the same names.
    public private(set) var layout: RecordLayout = .empty
    /// The attributes the engine stamps at save (see ``AutomaticTimestamp``), in declaration order.
    public private(set) var timestamps: [(name: String, kind: AutomaticTimestamp)] = []

    /// Attributes computed from the record's own values (folded text, functions): slot and how.
    public private(set) var ownDerivations: [(slot: Int, attribute: String, derivation: Derivation)] = []
    /// Attributes that count a to-many, by the to-many's name: the slots to set.
    public private(set) var countedRelationships: [String: [Int]] = [:]

    mutating func rebuildLookups() {
        layout = .shared(storedPropertyNames)
        timestamps = attributes.compactMap { attribute in attribute.timestamp.map { (attribute.name, $0) } }
        ownDerivations = []
        countedRelationships = [:]
        for (slot, attribute) in attributes.enumerated() {
            guard let derivation = attribute.derivation else { continue }
            if case .count(let relationship) = derivation.source {
                countedRelationships[relationship, default: []].append(slot)
            } else {
                ownDerivations.append((slot, attribute.name, derivation))
            }
        }
        attributeIndex = Dictionary(attributes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
        relationshipIndex = Dictionary(
            relationships.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The attribute with this name (composite fields as `outer.inner`).
    public func attribute(_ name: String) -> AttributeDescription? {
        attributeIndex[name].map { attributes[$0] }
    }

    /// The relationship with this name.
    public func relationship(_ name: String) -> RelationshipDescription? {
        relationshipIndex[name].map { relationships[$0] }
    }

    /// To-one relationships (stored as references in `values`).
    public var toOneRelationships: [RelationshipDescription] { relationships.filter(\.isToOne) }

    /// Names stored in a record's `values`: attributes and to-one references.
    public var storedPropertyNames: [String] {
        attributes.map(\.name) + relationships.filter(\.isToOne).map(\.name)
    }

    /// Whether `name` is an attribute, or a to-one reference (both are stored values).
    public func isStoredProperty(_ name: String) -> Bool {
        attributeIndex[name] != nil || relationship(name)?.isToOne == true
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
