/// An untyped entity instance: what the engine validates and what backends store.
///
/// `values` holds every attribute (composite attributes flattened as `address.city`) and every
/// to-one reference (the destination's ``RecordID/value``). A missing key reads as ``Value/null``.
/// To-many relationships are not stored here: they are derived from inverse references or kept
/// as link lists by the backend (see ``RelationshipDescription/storage``).
public struct Record: Sendable, Hashable {
    /// The entity name.
    public var entity: String
    /// The record's identity within its entity.
    public var id: RecordID
    /// Bumped by the engine on every write that changes the record; `0` for a record never stored.
    public var version: Int64
    /// Attribute and to-one reference values by property name.
    public var values: [String: Value]

    /// A record; the engine sets the version when it writes.
    public init(entity: String, id: RecordID, version: Int64 = 0, values: [String: Value] = [:]) {
        self.entity = entity
        self.id = id
        self.version = version
        self.values = values
    }

    /// The value of a property; ``Value/null`` when absent. `"id"` reads the record's ID (it is
    /// never a stored property), so predicates and sorts can name it.
    public subscript(_ property: String) -> Value {
        get { values[property] ?? (property == "id" ? id.value : .null) }
        set { values[property] = newValue }
    }

    /// The key that identifies this record across entities.
    public var key: RecordKey { RecordKey(entity: entity, id: id) }

    /// Names of the properties whose values differ between `self` and `other` (null and absent are equal).
    public func changedProperties(comparedTo other: Record) -> [String] {
        changedPropertySet(comparedTo: other).sorted()
    }

    /// ``changedProperties(comparedTo:)`` unsorted, for callers that only test membership.
    func changedPropertySet(comparedTo other: Record) -> Set<String> {
        var names: Set<String> = []
        for (name, value) in values where other[name] != value { names.insert(name) }
        for (name, value) in other.values where values[name] == nil && !value.isNull { names.insert(name) }
        return names
    }

    /// Whether any property differs from `other` (null and absent are equal).
    public func differs(from other: Record) -> Bool {
        values.contains { other[$0.key] != $0.value } || other.values.contains { values[$0.key] == nil && !$0.value.isNull }
    }
}

/// An entity name and an ID: the address of one record in a store.
public struct RecordKey: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The entity name.
    public var entity: String
    /// The record's ID.
    public var id: RecordID

    /// The key of a record.
    public init(entity: String, id: RecordID) {
        self.entity = entity
        self.id = id
    }

    public var description: String { "\(entity)(\(id))" }

    /// Hashes the ID alone: keys are looked up on every staged change, and hashing the entity
    /// name's text each time cost more than the rare bucket shared by equal IDs of two entities
    /// (equality still compares both).
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// The key with its ID's text in NFC (see ``ValueRules``).
    var normalized: RecordKey { RecordKey(entity: entity, id: ValueRules.normalized(id)) }
}
