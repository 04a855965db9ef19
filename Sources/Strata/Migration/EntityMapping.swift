/// How the records of one entity of a stage's target schema are made from the stored ones:
/// renames followed, defaults filled, relationships re-derived from whatever side kept them.
struct EntityMapping: Sendable {
    /// Where one stored property of the new record comes from.
    enum SlotSource: Sendable {
        /// Slot `index` of the old record (an attribute, or a to-one staying a to-one); `fill`
        /// replaces a null (an attribute made required, with its default).
        case slot(Int, fill: Value?)
        /// Slot `index` of the old record converted to the attribute's new type (nil from
        /// `convert`: the value does not convert, and the migration fails naming it).
        case converted(Int, fill: Value?, from: AttributeType, to: AttributeType, convert: Conversion)
        /// A constant: an added attribute's default, or null.
        case constant(Value)
        /// A to-one made from an old to-many: its one member (more than one is a failure).
        case member(RelationshipDescription)
    }

    typealias Conversion = @Sendable (Value, AttributeType) throws -> Value?

    let target: EntityDescription
    /// The stored entity the records come from (nil: the target starts empty).
    let source: EntityDescription?
    /// One per slot of the target's layout (attributes, then to-ones).
    let slots: [SlotSource]
    /// Link lists the target keeps, each with the old relationship its members come from.
    let linkLists: [(relationship: RelationshipDescription, from: RelationshipDescription)]
    /// Required properties nothing fills (left to a custom stage, then checked).
    let unfilled: [String]
    /// Unique constraints of the target the source did not have (checked after the copy).
    let newUniqueConstraints: [[String]]

    /// The mapping of `target` from `source` in a schema whose entity renames are `oldNames`
    /// (new name → stored name). `lenient` (a custom stage) leaves what no lightweight step covers
    /// empty instead of failing; `StageInference` has already refused it otherwise.
    init(
        target: EntityDescription, source: EntityDescription?, oldNames: [String: String],
        conversions: [AttributeConversion] = []
    ) {
        self.target = target
        self.source = source
        var slots: [SlotSource] = []
        var unfilled: [String] = []
        func oldName(_ name: String, renamedFrom: String?, in names: Set<String>) -> String? {
            StoredNames.of(name, renamedFrom: renamedFrom, isStored: names.contains)
        }
        let oldAttributes = Set(source?.attributes.map(\.name) ?? [])
        for attribute in target.attributes {
            let old = oldName(attribute.name, renamedFrom: attribute.renamedFrom, in: oldAttributes).flatMap {
                source?.attribute($0)
            }
            let explicit = conversions.last { $0.attribute == attribute.name }?.convert
            if let old, let slot = source?.layout.slot(old.name),
                old.type == attribute.type || explicit != nil
                    || TypeConversion.isLossless(from: old.type, to: attribute.type)
            {
                let fill = attribute.isOptional ? nil : attribute.defaultValue
                if old.type == attribute.type {
                    slots.append(.slot(slot, fill: fill))
                } else {
                    let convert: Conversion = explicit ?? { value, type in TypeConversion.lossless(value, to: type) }
                    slots.append(.converted(slot, fill: fill, from: old.type, to: attribute.type, convert: convert))
                }
                if old.isOptional, !attribute.isOptional, fill == nil { unfilled.append(attribute.name) }
            } else {
                let value = attribute.defaultValue ?? .null
                slots.append(.constant(value))
                if value.isNull, !attribute.isOptional { unfilled.append(attribute.name) }
            }
        }
        let oldRelationships = Set(source?.relationships.map(\.name) ?? [])
        var linkLists: [(RelationshipDescription, RelationshipDescription)] = []
        for relationship in target.relationships {
            let old = oldName(relationship.name, renamedFrom: relationship.renamedFrom, in: oldRelationships)
                .flatMap { source?.relationship($0) }
                .flatMap { old in
                    old.destination == (oldNames[relationship.destination] ?? relationship.destination) ? old : nil
                }
            if relationship.isToOne {
                if let old, old.isToOne, let slot = source?.layout.slot(old.name) {
                    slots.append(.slot(slot, fill: nil))
                } else if let old {
                    slots.append(.member(old))
                } else {
                    slots.append(.constant(.null))
                    if relationship.isRequired { unfilled.append(relationship.name) }
                }
            } else if relationship.keepsLinkList, let old {
                linkLists.append((relationship, old))
            }
        }
        self.slots = slots
        self.linkLists = linkLists
        self.unfilled = unfilled
        let oldConstraints = Set((source?.uniqueConstraints ?? []).map { $0.sorted() })
        let renamedBack: [String: String] = Dictionary(
            target.attributes.compactMap { attribute in attribute.renamedFrom.map { (attribute.name, $0) } },
            uniquingKeysWith: { a, _ in a })
        newUniqueConstraints = target.uniqueConstraints.filter { constraint in
            !oldConstraints.contains(constraint.map { renamedBack[$0] ?? $0 }.sorted())
        }
    }

    /// Whether any slot needs the old relationship members (a to-many becoming a to-one).
    var needsMembers: Bool {
        slots.contains { if case .member = $0 { true } else { false } }
    }

    /// The new record made from `old`; `members` gives a to-many's old members by relationship.
    func record(from old: Record, members: (RelationshipDescription) throws -> [RecordID]) throws -> Record {
        var values: [Value] = []
        values.reserveCapacity(slots.count)
        let layout = target.layout
        for (position, source) in slots.enumerated() {
            switch source {
            case .slot(let slot, let fill):
                let value =
                    old.layout === self.source?.layout ? old.slots[slot] : old[self.source?.layout.names[slot] ?? ""]
                values.append(value.isNull ? (fill ?? .null) : value)
            case .converted(let slot, let fill, let from, let to, let convert):
                let value =
                    old.layout === self.source?.layout ? old.slots[slot] : old[self.source?.layout.names[slot] ?? ""]
                guard !value.isNull else {
                    values.append(fill ?? .null)
                    continue
                }
                guard var converted = try convert(value, to), to.accepts(converted),
                    ValueRules.violation(of: converted) == nil
                else {
                    throw StrataError(
                        .typeMismatch, entity: target.name, recordID: old.id, property: layout.names[position],
                        "\(target.name).\(layout.names[position]) changes from \(from.rawValue) to \(to.rawValue), "
                            + "but record \(old.id) holds \(value), which does not convert")
                }
                if case .string(let text) = converted { converted = .string(ValueRules.nfc(text)) }
                values.append(converted)
            case .constant(let value):
                values.append(value)
            case .member(let relationship):
                let found = try members(relationship)
                if found.count > 1 {
                    throw StrataError(
                        .migrationRequired, entity: target.name, recordID: old.id, property: layout.names[position],
                        "\(target.name).\(layout.names[position]) becomes a to-one, but record \(old.id) has \(found.count) of them (\(found.prefix(5).map(\.description).joined(separator: ", "))); a custom stage must choose"
                    )
                }
                values.append(found.first?.value ?? .null)
            }
        }
        return Record(entity: target.name, id: old.id, version: old.version, layout: layout, slots: values)
    }

    /// The members of the old relationship `relationship` (of the source entity) for `owners`,
    /// read from whichever side kept them; each list in the order the store kept (ID order when
    /// membership was derived).
    static func members(
        of relationship: RelationshipDescription, in source: EntityDescription, owners: [Record],
        from old: any StorageReadTransaction
    ) throws -> [RecordID: [RecordID]] {
        var found: [RecordID: [RecordID]] = [:]
        switch relationship.storage {
        case .reference:
            for owner in owners {
                if let target = RecordID(owner[relationship.name]) { found[owner.id] = [target] }
            }
        case .inverseReference:
            guard let inverse = relationship.inverse else { return [:] }
            found = try old.referrers(relationship.destination, property: inverse, toEach: owners.map(\.id))
        case .links, .orderedLinks:
            for owner in owners {
                let links = try old.links(source.name, relationship: relationship.name, from: owner.id)
                if !links.isEmpty { found[owner.id] = links }
            }
        case .inverseLinks:
            guard let inverse = relationship.inverse else { return [:] }
            for owner in owners {
                let links = try old.linkOwners(relationship.destination, relationship: inverse, to: owner.id)
                if !links.isEmpty { found[owner.id] = links }
            }
        }
        return found
    }
}
