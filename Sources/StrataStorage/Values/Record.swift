/// An untyped entity instance: what the engine validates and what backends store.
///
/// A record holds every attribute (composite attributes flattened as `address.city`) and every
/// to-one reference (the destination's ``RecordID/value``), one value per slot of its
/// `layout`. A name the layout lacks reads as ``Value/null``, and so does an absent value: a
/// record's equality does not tell them apart. To-many relationships are not stored here: they
/// are derived from inverse references or kept as link lists by the backend (see
/// ``RelationshipDescription/storage``).
///
/// Backends and the engine build records in their entity's layout
/// (``EntityDescription/layout``) and read them by slot; `values` and the name subscript
/// remain for tools, tests and other callers that think in names.
public struct Record: Sendable, Hashable {
    /// The entity name.
    public var entity: String
    /// The record's identity within its entity.
    public var id: RecordID
    /// Bumped by the engine on every write that changes the record; `0` for a record never stored.
    public var version: Int64
    /// The property name of each slot.
    public package(set) var layout: RecordLayout
    /// The values, one per slot of `layout`.
    public package(set) var slots: [Value]

    /// A record of named values (in a layout of its own; the engine moves it into its entity's
    /// layout when it is saved).
    public init(entity: String, id: RecordID, version: Int64 = 0, values: [String: Value] = [:]) {
        self.entity = entity
        self.id = id
        self.version = version
        let names = values.keys.sorted()
        self.layout = names.isEmpty ? .empty : .adHoc(names)
        self.slots = names.map { values[$0] ?? .null }
    }

    /// A record in `layout`, one value per slot: how backends and codecs build records. Missing
    /// trailing slots read as null; extra values are ignored.
    public init(entity: String, id: RecordID, version: Int64 = 0, layout: RecordLayout, slots: [Value]) {
        self.entity = entity
        self.id = id
        self.version = version
        self.layout = layout
        var slots = slots
        if slots.count != layout.count {
            if slots.count < layout.count {
                slots.append(contentsOf: repeatElement(.null, count: layout.count - slots.count))
            } else {
                slots.removeLast(slots.count - layout.count)
            }
        }
        self.slots = slots
    }

    /// Every value by property name (absent properties of the layout included, as null). Builds a
    /// dictionary: code on a hot path reads `slots` in its entity's layout instead.
    public var values: [String: Value] {
        get { Dictionary(zip(layout.names, slots), uniquingKeysWith: { a, _ in a }) }
        set {
            if newValue.keys.allSatisfy({ layout.slot($0) != nil }) {
                slots = layout.names.map { newValue[$0] ?? .null }
            } else {
                let names = newValue.keys.sorted()
                layout = .adHoc(names)
                slots = names.map { newValue[$0] ?? .null }
            }
        }
    }

    /// The value stored under `property`, or nil when the layout has no such property (unlike the
    /// subscript, which reads an absent property as null).
    public func value(named property: String) -> Value? {
        layout.slot(property).map { slots[$0] }
    }

    /// The value of property `name`, which is slot `slot` of `layout`: read by position when the
    /// record is in that layout (the engine's and the backends' records are), else by name.
    @inline(__always)
    public func value(at slot: Int, of layout: RecordLayout, named name: String) -> Value {
        self.layout === layout ? slots[slot] : self[name]
    }

    /// The value of a property; ``Value/null`` when absent. `"id"` reads the record's ID (it is
    /// never a stored property), so predicates and sorts can name it.
    public subscript(_ property: String) -> Value {
        get {
            if let slot = layout.slot(property) { return slots[slot] }
            return property == "id" ? id.value : .null
        }
        set {
            if let slot = layout.slot(property) {
                slots[slot] = newValue
            } else {
                layout = layout.adding(property)
                slots.append(newValue)
            }
        }
    }

    /// The key that identifies this record across entities.
    public var key: RecordKey { RecordKey(entity: entity, id: id) }

    /// Names of the properties whose values differ between `self` and `other` (null and absent are equal).
    public func changedProperties(comparedTo other: Record) -> [String] {
        changedPropertySet(comparedTo: other).sorted()
    }

    /// `changedProperties(comparedTo:)` unsorted, for callers that only test membership.
    package func changedPropertySet(comparedTo other: Record) -> Set<String> {
        var names: Set<String> = []
        if layout === other.layout {
            for slot in slots.indices where slots[slot] != other.slots[slot] { names.insert(layout.names[slot]) }
            return names
        }
        for (slot, value) in slots.enumerated() where other[layout.names[slot]] != value {
            names.insert(layout.names[slot])
        }
        for (slot, value) in other.slots.enumerated()
        where layout.slot(other.layout.names[slot]) == nil && !value.isNull {
            names.insert(other.layout.names[slot])
        }
        return names
    }

    /// Whether any property differs from `other` (null and absent are equal).
    public func differs(from other: Record) -> Bool {
        if layout === other.layout { return slots != other.slots }
        for (slot, value) in slots.enumerated() where other[layout.names[slot]] != value { return true }
        for (slot, value) in other.slots.enumerated()
        where layout.slot(other.layout.names[slot]) == nil && !value.isNull {
            return true
        }
        return false
    }

    /// Equal when the entity, ID, version and every property's value agree (null and absent are
    /// equal, whatever the two layouts).
    public static func == (lhs: Record, rhs: Record) -> Bool {
        lhs.entity == rhs.entity && lhs.id == rhs.id && lhs.version == rhs.version && !lhs.differs(from: rhs)
    }

    /// Hashes the entity, ID and version: the values' layouts may differ between equal records.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entity)
        hasher.combine(id)
        hasher.combine(version)
    }

    /// This record in `layout` (a no-op when it is already in it): what a backend or the engine
    /// does with a record from elsewhere before reading it by slot.
    public func inLayout(_ layout: RecordLayout) -> Record {
        if self.layout === layout { return self }
        return Record(entity: entity, id: id, version: version, layout: layout, slots: layout.names.map { self[$0] })
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
    package var normalized: RecordKey { RecordKey(entity: entity, id: ValueRules.normalized(id)) }
}
