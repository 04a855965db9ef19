/// One relationship of an entity.
public struct RelationshipDescription: Sendable {
    /// To-one or to-many.
    public enum Cardinality: String, Sendable, Hashable, Codable {
        /// At most one destination.
        case toOne
        /// Any number of destinations.
        case toMany
    }

    /// How the relationship is kept by a backend. Decided by the schema from the pair of sides.
    public enum Storage: String, Sendable, Hashable, Codable {
        /// A to-one: the destination's ID is stored in the record's `values` under the relationship name.
        case reference
        /// A to-many whose inverse is a to-one: derived from the inverse references (nothing stored).
        case inverseReference
        /// An ordered to-many whose inverse is a to-one: the order is kept as a link list on this side;
        /// membership also follows the inverse references.
        case orderedLinks
        /// The owning side of a many-to-many: the backend keeps a link list per record (a join table).
        case links
        /// The other side of a many-to-many: read through the owning side's reverse lookup.
        case inverseLinks
    }

    /// The relationship name.
    public var name: String
    /// The destination entity.
    public var destination: String
    /// The relationship on the destination that points back.
    public var inverse: String?
    /// To-one or to-many.
    public var cardinality: Cardinality
    /// Whether a to-many keeps its order.
    public var isOrdered: Bool
    /// What deleting a record does to its destinations.
    public var deleteRule: DeleteRule
    /// A to-one that must point at a record.
    public var isRequired: Bool
    /// Bounds on a to-many's destination count.
    public var minCount: Int?
    /// At most this many destinations (to-many only).
    public var maxCount: Int?
    /// Filled in by ``Schema`` when it is built.
    public package(set) var storage: Storage
    /// The name this relationship had in the previous schema version.
    public var renamedFrom: String?

    /// An untyped relationship; ``Schema`` checks it and fills in `storage`.
    public init(
        name: String, destination: String, inverse: String?, cardinality: Cardinality,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, isRequired: Bool = false,
        minCount: Int? = nil, maxCount: Int? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.cardinality = cardinality
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isRequired = isRequired
        self.minCount = minCount
        self.maxCount = maxCount
        self.storage = cardinality == .toOne ? .reference : .inverseReference
    }

    /// Whether this is a to-one.
    public var isToOne: Bool { cardinality == .toOne }

    /// Whether backends keep a link list for this side (``Storage/links`` or ``Storage/orderedLinks``).
    public var keepsLinkList: Bool { storage == .links || storage == .orderedLinks }
}
