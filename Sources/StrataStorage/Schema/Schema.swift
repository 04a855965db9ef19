/// The set of entities a store holds. Built once; checks itself when built.
///
/// ```swift
/// let schema = try Schema(Person.self, Trip.self, Stop.self)  // the engine's `Schema(_:)`, from models
/// ```
/// A relationship whose inverse does not exist or does not point back, a duplicate entity or
/// property name, an index or unique constraint on an unknown property — each throws a
/// ``StrataError`` with code ``StrataError/Code/invalidSchema``.
public struct Schema: Sendable {
    /// The entities, in declaration order.
    public let entities: [EntityDescription]
    private let entityIndex: [String: Int]
    /// The app's name for this version of its schema (from a `MigrationPlan`), kept by the store
    /// with the shape. `nil` for a schema outside a plan: stores then compare shapes alone.
    public package(set) var version: String?
    /// Whether a store opened with this schema records it as the app's declaration
    /// (``SchemaFile/metadataKey``): true for schemas an app builds, false for those read back
    /// from a store or a file, which would overwrite the app's rules with what they lack.
    package var recordsDeclaration = true
    /// Whether any entity has a derived attribute (saves skip the derivation pass otherwise).
    public let hasDerivedAttributes: Bool

    /// This schema named as version `name` (what `SchemaVersion` does for a plan's versions).
    public func versioned(_ name: String?) -> Schema {
        var copy = self
        copy.version = name
        return copy
    }

    /// Builds a schema from untyped descriptions (tools, migrations, tests).
    public init(entities: [EntityDescription]) throws {
        var index: [String: Int] = [:]
        for (position, entity) in entities.enumerated() {
            guard index[entity.name] == nil else {
                throw StrataError(.invalidSchema, entity: entity.name, "entity \(entity.name) is declared twice")
            }
            index[entity.name] = position
        }
        var resolved = Self.completingInverses(entities, index: index)
        for position in resolved.indices {
            try Self.check(resolved[position], in: resolved, index: index)
            for r in resolved[position].relationships.indices {
                resolved[position].relationships[r].storage = Self.storage(
                    of: resolved[position].relationships[r], in: resolved[position].name, entities: resolved,
                    index: index)
            }
        }
        self.entities = resolved
        self.entityIndex = index
        self.hasDerivedAttributes = resolved.contains { $0.attributes.contains { $0.derivation != nil } }
    }

    /// An inverse declared on one side only is completed on the other, as SwiftData does: when a
    /// relationship names an inverse that exists on its destination, points at this entity and
    /// declares no inverse itself, that inverse points back. Declaring both sides stays valid.
    private static func completingInverses(_ entities: [EntityDescription], index: [String: Int])
        -> [EntityDescription]
    {
        var entities = entities
        for entity in entities {
            for relationship in entity.relationships {
                guard let inverse = relationship.inverse, let destination = index[relationship.destination],
                    let other = entities[destination].relationships.firstIndex(where: { $0.name == inverse }),
                    entities[destination].relationships[other].inverse == nil,
                    entities[destination].relationships[other].destination == entity.name
                else { continue }
                entities[destination].relationships[other].inverse = relationship.name
            }
        }
        return entities
    }

    /// The entity with this name, or `nil`.
    public func entity(_ name: String) -> EntityDescription? {
        entityIndex[name].map { entities[$0] }
    }

    /// The entity, or an ``StrataError/Code/unknownEntity`` error.
    public func requireEntity(_ name: String) throws -> EntityDescription {
        guard let entity = entity(name) else {
            throw StrataError(.unknownEntity, entity: name, "entity \(name) is not in the schema")
        }
        return entity
    }

    /// The inverse relationship of `relationship` on `entity`, if it declares one.
    public func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let inverse = relationship.inverse else { return nil }
        return entity(relationship.destination)?.relationship(inverse)
    }

    private static func check(_ entity: EntityDescription, in entities: [EntityDescription], index: [String: Int])
        throws
    {
        func fail(_ property: String?, _ message: String) -> StrataError {
            StrataError(.invalidSchema, entity: entity.name, property: property, message)
        }
        var names: Set<String> = ["id"]
        for attribute in entity.attributes {
            guard names.insert(attribute.name).inserted else {
                throw fail(
                    attribute.name, "property \(attribute.name) is declared twice (or uses the reserved name id)")
            }
            if let defaultValue = attribute.defaultValue, !defaultValue.isNull, !attribute.type.accepts(defaultValue) {
                throw fail(attribute.name, "default \(defaultValue) is not a \(attribute.type)")
            }
            if attribute.timestamp != nil, attribute.type != .date {
                throw fail(attribute.name, "an automatic timestamp must be a date, not \(attribute.type)")
            }
            for rule in attribute.rules {
                if case .pattern(let regex) = rule.kind, (try? Regex(regex)) == nil {
                    throw fail(attribute.name, "pattern \(regex) is not a valid regular expression")
                }
            }
        }
        for relationship in entity.relationships {
            guard names.insert(relationship.name).inserted else {
                throw fail(
                    relationship.name, "property \(relationship.name) is declared twice (or uses the reserved name id)")
            }
            guard let destinationIndex = index[relationship.destination] else {
                throw fail(relationship.name, "destination entity \(relationship.destination) is not in the schema")
            }
            let destination = entities[destinationIndex]
            if relationship.isOrdered && relationship.isToOne {
                throw fail(relationship.name, "only a to-many relationship can be ordered")
            }
            if let min = relationship.minCount, let max = relationship.maxCount, min > max {
                throw fail(relationship.name, "minimum count \(min) exceeds maximum \(max)")
            }
            guard let inverseName = relationship.inverse else {
                if !relationship.isToOne {
                    throw fail(relationship.name, "a to-many relationship needs an inverse (it is stored through it)")
                }
                continue
            }
            guard let inverse = destination.relationships.first(where: { $0.name == inverseName }) else {
                throw fail(relationship.name, "inverse \(relationship.destination).\(inverseName) does not exist")
            }
            guard inverse.destination == entity.name, inverse.inverse == relationship.name else {
                throw fail(
                    relationship.name,
                    "inverse \(relationship.destination).\(inverseName) does not point back at "
                        + "\(entity.name).\(relationship.name)"
                )
            }
            if relationship.isOrdered && inverse.isOrdered {
                throw fail(relationship.name, "a many-to-many relationship can be ordered on one side only")
            }
        }
        try checkCollections(entity)
        try checkDerivations(entity)
        try checkSearchIndexes(entity)
        let stored = Set(entity.storedPropertyNames)
        for (kind, groups) in [("index", entity.indexes), ("unique constraint", entity.uniqueConstraints)] {
            for group in groups {
                guard !group.isEmpty else { throw fail(nil, "an empty \(kind)") }
                for name in group where !stored.contains(name) {
                    throw fail(name, "\(kind) names \(name), which is not an attribute or to-one of \(entity.name)")
                }
            }
        }
    }

    private static func storage(
        of relationship: RelationshipDescription, in entityName: String, entities: [EntityDescription],
        index: [String: Int]
    ) -> RelationshipDescription.Storage {
        if relationship.isToOne { return .reference }
        guard let inverseName = relationship.inverse, let destinationIndex = index[relationship.destination],
            let inverse = entities[destinationIndex].relationships.first(where: { $0.name == inverseName })
        else { return .inverseReference }
        if inverse.isToOne { return relationship.isOrdered ? .orderedLinks : .inverseReference }
        // Many-to-many: one side owns the link lists. The ordered side if there is one, else the
        // side whose "Entity.relationship" sorts first, so the choice is stable across runs.
        if relationship.isOrdered { return .links }
        if inverse.isOrdered { return .inverseLinks }
        return "\(entityName).\(relationship.name)" <= "\(relationship.destination).\(inverseName)"
            ? .links : .inverseLinks
    }
}

extension Schema {
    /// The ID kind of the records `entity`'s `relationship` points at: what a backend decodes a
    /// link list's targets as. ``StrataError/Code/unknownProperty`` when there is no such relationship.
    public func destinationIDKind(of entity: String, relationship: String) throws -> RecordID.Kind {
        guard let destination = self.entity(entity)?.relationship(relationship)?.destination,
            let kind = self.entity(destination)?.idKind
        else {
            throw StrataError(
                .unknownProperty, entity: entity, property: relationship,
                "\(relationship) is not a relationship of \(entity)")
        }
        return kind
    }
}
