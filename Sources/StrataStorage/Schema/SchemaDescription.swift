import Foundation

/// The shape of a schema as a store keeps it: every entity, attribute (type, optionality, index),
/// relationship (destination, inverse, cardinality, storage), composite index and unique
/// constraint. Two schemas with equal descriptions store data identically; anything else is a
/// difference a store names when it refuses to open (`differences(from:)`). Validation rules,
/// defaults and delete rules are behaviour and are not part of it.
public struct SchemaDescription: Codable, Hashable, Sendable {
    /// One attribute as stored.
    public struct Attribute: Codable, Hashable, Sendable {
        /// The attribute's name.
        public var name: String
        /// The stored type.
        public var type: AttributeType
        /// Whether it may hold null.
        public var isOptional: Bool
        /// Whether it is indexed.
        public var isIndexed: Bool
        /// For arrays, sets and dictionaries: the element type.
        public var element: AttributeType?
        /// For a derived attribute: its ``Derivation``'s recorded form (`count(stops)`).
        public var derived: String?

        /// An attribute as stored.
        public init(
            name: String, type: AttributeType, isOptional: Bool, isIndexed: Bool, element: AttributeType? = nil,
            derived: String? = nil
        ) {
            (self.name, self.type, self.isOptional, self.isIndexed) = (name, type, isOptional, isIndexed)
            (self.element, self.derived) = (element, derived)
        }
    }

    /// One relationship as stored.
    public struct Relationship: Codable, Hashable, Sendable {
        /// The relationship's name.
        public var name: String
        /// The destination entity.
        public var destination: String
        /// The inverse relationship's name.
        public var inverse: String?
        /// To-one or to-many.
        public var cardinality: RelationshipDescription.Cardinality
        /// Whether the to-many keeps an order.
        public var isOrdered: Bool
        /// How the relationship is stored.
        public var storage: RelationshipDescription.Storage
    }

    /// One entity as stored.
    public struct Entity: Codable, Hashable, Sendable {
        /// The entity's name.
        public var name: String
        /// The kind of its IDs.
        public var idKind: RecordID.Kind
        /// Its attributes.
        public var attributes: [Attribute]
        /// Its relationships.
        public var relationships: [Relationship]
        /// Its compound indexes.
        public var indexes: [[String]]
        /// Its unique constraints.
        public var uniqueConstraints: [[String]]
        /// The order of the stored properties in a record (attributes, then to-ones, as
        /// declared): stores lay records out in it. Nil in descriptions written before it was kept.
        public var layout: [String]?
        /// Its full-text indexes, by name; nil when it has none (and in descriptions written
        /// before they existed).
        public var searchIndexes: [SearchIndexDescription]?
    }

    /// The description's own format, for later releases.
    public var format = 1
    /// Entities by name, ascending; their members likewise, so equal shapes encode equally.
    public var entities: [Entity]
    /// The app's version name for the schema that wrote the store (``Schema/version``), if any.
    public var version: String?

    /// The metadata key a store keeps its description under.
    public static let metadataKey = MetadataKeys.schemaDescription

    /// The stored shape of a schema.
    public init(_ schema: Schema) {
        version = schema.version
        entities = schema.entities.sorted { $0.name < $1.name }.map { entity in
            Entity(
                name: entity.name, idKind: entity.idKind,
                attributes: entity.attributes.sorted { $0.name < $1.name }.map {
                    Attribute(
                        name: $0.name, type: $0.type, isOptional: $0.isOptional, isIndexed: $0.isIndexed,
                        element: $0.element, derived: $0.derivation?.description)
                },
                relationships: entity.relationships.sorted { $0.name < $1.name }.map {
                    Relationship(
                        name: $0.name, destination: $0.destination, inverse: $0.inverse, cardinality: $0.cardinality,
                        isOrdered: $0.isOrdered, storage: $0.storage)
                },
                indexes: entity.indexes.sorted { $0.joined(separator: ",") < $1.joined(separator: ",") },
                uniqueConstraints: entity.uniqueConstraints.sorted {
                    $0.joined(separator: ",") < $1.joined(separator: ",")
                },
                layout: entity.layout.names,
                searchIndexes: entity.searchIndexes.isEmpty ? nil : entity.searchIndexes.sorted { $0.name < $1.name })
        }
    }

    /// The bytes a store keeps (JSON with sorted keys, readable with any tool).
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? Array(encoder.encode(self))) ?? []
    }

    /// Reads stored bytes; damaged ones are ``StrataError/Code/corruptStore``.
    public static func decode(_ bytes: [UInt8], path: String) throws -> SchemaDescription {
        do {
            return try JSONDecoder().decode(SchemaDescription.self, from: Data(bytes))
        } catch {
            throw StrataError(.corruptStore, underlying: error, "\(path): the stored schema description is unreadable")
        }
    }

    /// Whether a store holding this description can be opened with `current` as it is: the same
    /// shape, and the same version when `current` names one (a plan's data-only stage changes the
    /// version and not the shape).
    public func isOpenable(as current: SchemaDescription) -> Bool {
        sameShape(as: current) && (current.version == nil || version == current.version)
    }

    /// Whether the stores of both descriptions hold data identically (a description from before
    /// layouts were kept matches any order of the same properties).
    public func sameShape(as other: SchemaDescription) -> Bool {
        guard entities.count == other.entities.count else { return false }
        return zip(entities, other.entities).allSatisfy { mine, theirs in
            var mine = mine
            if mine.layout == nil || theirs.layout == nil { mine.layout = theirs.layout }
            return mine == theirs
        }
    }

    /// One difference between a stored shape and the app's.
    public struct Change: Sendable, Hashable, CustomStringConvertible {
        /// The entity the change concerns.
        public var entity: String
        /// The attribute or relationship it concerns, if one.
        public var property: String?
        /// One sentence, e.g. "Person: attribute `pinned` added (bool)".
        public var description: String
    }

    /// What this (the app's) schema changes relative to `stored`, one ``Change`` per difference.
    /// Empty when the shapes are equal.
    public func differences(from stored: SchemaDescription) -> [Change] {
        var found: [Change] = []
        let old = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for name in new.keys.sorted() where old[name] == nil {
            found.append(Change(entity: name, description: "entity `\(name)` added"))
        }
        for name in old.keys.sorted() where new[name] == nil {
            found.append(Change(entity: name, description: "entity `\(name)` removed"))
        }
        for name in new.keys.sorted() {
            guard let before = old[name], let after = new[name] else { continue }
            found += Self.differences(before, after)
        }
        return found
    }

    private static func differences(_ before: Entity, _ after: Entity) -> [Change] {
        let entity = after.name
        var found: [Change] = []
        func note(_ property: String?, _ text: String) {
            found.append(Change(entity: entity, property: property, description: "\(entity): \(text)"))
        }
        if before.idKind != after.idKind { note(nil, "ID kind \(before.idKind.rawValue) → \(after.idKind.rawValue)") }
        let oldAttributes = Dictionary(before.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for attribute in after.attributes {
            guard let previous = oldAttributes[attribute.name] else {
                note(
                    attribute.name,
                    "attribute `\(attribute.name)` added (\(attribute.type.rawValue)"
                        + "\(attribute.isOptional ? ", optional" : "")\(attribute.isIndexed ? ", indexed" : ""))"
                )
                continue
            }
            if previous.type != attribute.type {
                note(
                    attribute.name,
                    "attribute `\(attribute.name)` type \(previous.type.rawValue) → \(attribute.type.rawValue)")
            } else if previous.element != attribute.element {
                note(
                    attribute.name,
                    "attribute `\(attribute.name)` element type \(previous.element?.rawValue ?? "none") → "
                        + (attribute.element?.rawValue ?? "none"))
            }
            if previous.derived != attribute.derived {
                note(
                    attribute.name,
                    "attribute `\(attribute.name)` derived from \(previous.derived ?? "nothing") → "
                        + (attribute.derived ?? "nothing (stored as written)"))
            }
            if previous.isOptional != attribute.isOptional {
                note(
                    attribute.name,
                    "attribute `\(attribute.name)` "
                        + (attribute.isOptional ? "required → optional" : "optional → required")
                )
            }
            if previous.isIndexed != attribute.isIndexed {
                note(attribute.name, "index on `\(attribute.name)` \(attribute.isIndexed ? "added" : "removed")")
            }
        }
        let newAttributeNames = Set(after.attributes.map(\.name))
        for attribute in before.attributes where !newAttributeNames.contains(attribute.name) {
            note(attribute.name, "attribute `\(attribute.name)` removed")
        }
        let oldRelationships = Dictionary(before.relationships.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for relationship in after.relationships {
            guard let previous = oldRelationships[relationship.name] else {
                note(
                    relationship.name,
                    "relationship `\(relationship.name)` added "
                        + "(\(relationship.cardinality.rawValue) \(relationship.destination))"
                )
                continue
            }
            if previous != relationship {
                note(
                    relationship.name,
                    "relationship `\(relationship.name)` changed (\(describe(previous)) → \(describe(relationship)))")
            }
        }
        let newRelationshipNames = Set(after.relationships.map(\.name))
        for relationship in before.relationships where !newRelationshipNames.contains(relationship.name) {
            note(relationship.name, "relationship `\(relationship.name)` removed")
        }
        if let old = before.layout, let new = after.layout, old != new, Set(old) == Set(new) {
            note(
                nil,
                "the order of its stored properties changed "
                    + "(\(old.joined(separator: ", ")) → \(new.joined(separator: ", ")))"
            )
        }
        for index in after.indexes where !before.indexes.contains(index) {
            note(nil, "index (\(index.joined(separator: ", "))) added")
        }
        for index in before.indexes where !after.indexes.contains(index) {
            note(nil, "index (\(index.joined(separator: ", "))) removed")
        }
        for unique in after.uniqueConstraints where !before.uniqueConstraints.contains(unique) {
            note(nil, "unique constraint (\(unique.joined(separator: ", "))) added")
        }
        for unique in before.uniqueConstraints where !after.uniqueConstraints.contains(unique) {
            note(nil, "unique constraint (\(unique.joined(separator: ", "))) removed")
        }
        let oldSearch = before.searchIndexes ?? []
        let newSearch = after.searchIndexes ?? []
        for index in newSearch where !oldSearch.contains(index) {
            let previous = oldSearch.first { $0.name == index.name }
            note(
                nil,
                "full-text index \(previous.map { "\($0.summary) → " } ?? "")\(index.summary) "
                    + (previous == nil ? "added" : "changed")
            )
        }
        for index in oldSearch where !newSearch.contains(where: { $0.name == index.name }) {
            note(nil, "full-text index \(index.summary) removed")
        }
        return found
    }

    private static func describe(_ relationship: Relationship) -> String {
        "\(relationship.cardinality.rawValue) \(relationship.destination)\(relationship.isOrdered ? " ordered" : ""), "
            + "inverse \(relationship.inverse ?? "none"), \(relationship.storage.rawValue)"
    }
}
