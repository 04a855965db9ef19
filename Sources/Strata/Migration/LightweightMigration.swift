/// Infers the lightweight steps that turn a stored shape into the app's schema — what Core Data
/// calls an inferred mapping model. Anything no step covers is refused with
/// `StrataError.Code.migrationRequired` listing each change and saying a custom stage is needed.
public enum LightweightMigration {
    /// The steps from `stored` to `schema`, in the order a migration applies them: entities added
    /// and renamed, then per entity attributes, relationships, indexes and constraints, then
    /// entities removed. Empty when the shapes are equal.
    public static func steps(
        from stored: SchemaDescription, to schema: Schema, converting conversions: [AttributeConversion] = []
    ) throws -> [MigrationStep] {
        let (steps, problems) = infer(from: stored, to: schema, converting: conversions)
        if !problems.isEmpty {
            let list = problems.map { "\($0.entity)\($0.property.map { "." + $0 } ?? ""): \($0.text)" }.joined(
                separator: "; ")
            throw StrataError(
                .migrationRequired, entity: problems[0].entity, property: problems[0].property,
                "no lightweight step covers these changes; add a custom stage to the migration plan: \(list)")
        }
        return steps
    }

    /// A change no lightweight step covers.
    typealias Problem = (entity: String, property: String?, text: String)

    /// The steps, and what no step covers (a custom stage may fill it).
    static func infer(
        from stored: SchemaDescription, to schema: Schema, converting conversions: [AttributeConversion] = []
    ) -> (steps: [MigrationStep], problems: [Problem]) {
        let explicit = Set(conversions.map { "\($0.entity).\($0.attribute)" })
        var steps: [MigrationStep] = []
        var problems: [Problem] = []
        let storedEntities = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var matchedStored: Set<String> = []
        let described = Dictionary(
            SchemaDescription(schema).entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        // New entity name → the stored name it had (renames), to compare relationship destinations.
        let oldNames = StoredNames.entities(of: schema) { storedEntities[$0] != nil }
        for entity in schema.entities.sorted(by: { $0.name < $1.name }) {
            let source: SchemaDescription.Entity
            if let same = storedEntities[entity.name] {
                source = same
            } else if let old = entity.renamedFrom, let renamed = storedEntities[old] {
                source = renamed
                steps.append(.renameEntity(from: old, to: entity.name))
            } else {
                steps.append(.addEntity(entity.name))
                continue
            }
            matchedStored.insert(source.name)
            guard let target = described[entity.name] else { continue }
            if source.idKind != target.idKind {
                problems.append(
                    (
                        entity.name, nil,
                        "the ID kind changes from \(source.idKind.rawValue) to \(target.idKind.rawValue)"
                    ))
            }
            attributeSteps(entity, source, target, explicit, &steps, &problems)
            relationshipSteps(entity, source, oldNames, &steps, &problems)
            if let old = source.layout, let new = target.layout,
                old.filter(Set(new).contains) != new.filter(Set(old).contains)
            {
                steps.append(.reorderProperties(entity: entity.name))
            }
            for index in target.indexes where !source.indexes.contains(index) {
                steps.append(.addIndex(entity: entity.name, properties: index))
            }
            for index in source.indexes where !target.indexes.contains(index) {
                steps.append(.removeIndex(entity: entity.name, properties: index))
            }
            for unique in target.uniqueConstraints where !source.uniqueConstraints.contains(unique) {
                steps.append(.addUniqueConstraint(entity: entity.name, properties: unique))
            }
            for unique in source.uniqueConstraints where !target.uniqueConstraints.contains(unique) {
                steps.append(.removeUniqueConstraint(entity: entity.name, properties: unique))
            }
            let oldSearch = source.searchIndexes ?? []
            let newSearch = target.searchIndexes ?? []
            for index in oldSearch where !newSearch.contains(index) {
                steps.append(.removeSearchIndex(entity: entity.name, index: index.name))
            }
            for index in newSearch where !oldSearch.contains(index) {
                steps.append(.addSearchIndex(entity: entity.name, index: index.name))
            }
        }
        for entity in stored.entities where !matchedStored.contains(entity.name) {
            steps.append(.removeEntity(entity.name))
        }
        return (steps, problems)
    }

    private static func attributeSteps(
        _ entity: EntityDescription, _ source: SchemaDescription.Entity, _ target: SchemaDescription.Entity,
        _ explicit: Set<String>, _ steps: inout [MigrationStep], _ problems: inout [Problem]
    ) {
        let storedAttributes = Dictionary(source.attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var matched: Set<String> = []
        for attribute in entity.attributes {
            let old: SchemaDescription.Attribute
            if let same = storedAttributes[attribute.name] {
                old = same
            } else if let previous = attribute.renamedFrom, let renamed = storedAttributes[previous] {
                old = renamed
                steps.append(.renameAttribute(entity: entity.name, from: previous, to: attribute.name))
            } else {
                steps.append(
                    .addAttribute(entity: entity.name, attribute: attribute.name, default: attribute.defaultValue))
                if attribute.isIndexed {
                    steps.append(.addAttributeIndex(entity: entity.name, attribute: attribute.name))
                }
                continue
            }
            matched.insert(old.name)
            if old.type != attribute.type {
                let given = explicit.contains("\(entity.name).\(attribute.name)")
                if given || TypeConversion.isLossless(from: old.type, to: attribute.type) {
                    steps.append(
                        .changeType(
                            entity: entity.name, attribute: attribute.name, from: old.type, to: attribute.type,
                            explicit: given))
                } else {
                    problems.append(
                        (
                            entity.name, attribute.name,
                            "the type changes from \(old.type.rawValue) to \(attribute.type.rawValue), which can lose "
                                + "information: give the stage a conversion (AttributeConversion) or a custom stage"
                        ))
                }
            }
            if old.isOptional, !attribute.isOptional {
                // Without a default, the migration fails listing the records that hold nil (if any).
                steps.append(
                    .makeRequired(entity: entity.name, attribute: attribute.name, default: attribute.defaultValue))
            } else if !old.isOptional, attribute.isOptional {
                steps.append(.makeOptional(entity: entity.name, attribute: attribute.name))
            }
            if old.isIndexed != attribute.isIndexed {
                steps.append(
                    attribute.isIndexed
                        ? .addAttributeIndex(entity: entity.name, attribute: attribute.name)
                        : .removeAttributeIndex(entity: entity.name, attribute: attribute.name))
            }
        }
        for attribute in source.attributes where !matched.contains(attribute.name) {
            steps.append(.removeAttribute(entity: entity.name, attribute: attribute.name))
        }
        _ = target
    }

    private static func relationshipSteps(
        _ entity: EntityDescription, _ source: SchemaDescription.Entity, _ oldNames: [String: String],
        _ steps: inout [MigrationStep], _ problems: inout [Problem]
    ) {
        let stored = Dictionary(source.relationships.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var matched: Set<String> = []
        for relationship in entity.relationships {
            let old: SchemaDescription.Relationship
            if let same = stored[relationship.name] {
                old = same
            } else if let previous = relationship.renamedFrom, let renamed = stored[previous] {
                old = renamed
                steps.append(.renameRelationship(entity: entity.name, from: previous, to: relationship.name))
            } else {
                steps.append(.addRelationship(entity: entity.name, relationship: relationship.name))
                continue
            }
            matched.insert(old.name)
            if old.destination != (oldNames[relationship.destination] ?? relationship.destination) {
                problems.append(
                    (
                        entity.name, relationship.name,
                        "the destination changes from \(old.destination) to \(relationship.destination)"
                    ))
            } else if old.cardinality != relationship.cardinality {
                // The members are read from whichever side kept them; a to-one made from a to-many
                // fails at run time, naming each record with more than one.
                steps.append(
                    .changeCardinality(
                        entity: entity.name, relationship: relationship.name, cardinality: relationship.cardinality))
            } else if old.isOrdered != relationship.isOrdered {
                // The members stay; which side keeps the list (and its order) may move with it.
                steps.append(
                    .changeOrdering(
                        entity: entity.name, relationship: relationship.name, ordered: relationship.isOrdered))
            } else if old.storage != relationship.storage {
                // The inverse changed cardinality: which side keeps the members moves with it.
                steps.append(.changeStorage(entity: entity.name, relationship: relationship.name))
            }
        }
        for relationship in source.relationships where !matched.contains(relationship.name) {
            steps.append(.removeRelationship(entity: entity.name, relationship: relationship.name))
        }
    }
}
