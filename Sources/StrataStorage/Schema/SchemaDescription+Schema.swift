extension SchemaDescription {
    /// The stored shape as an untyped schema, to open and read a store written with it (a
    /// migration's source). Behaviour the description does not keep is absent: no validation
    /// rules or defaults, nullify delete rules, relationships optional.
    public func schema() throws -> Schema {
        var schema = try Schema(
            entities: entities.map { entity in
                // Records are laid out in the stored order: attributes and to-ones as declared.
                let position = Dictionary(
                    (entity.layout ?? []).enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
                func ordered<T>(_ items: [T], _ name: (T) -> String) -> [T] {
                    items.enumerated().sorted {
                        (position[name($0.element)] ?? Int.max, $0.offset) < (
                            position[name($1.element)] ?? Int.max, $1.offset
                        )
                    }.map(\.element)
                }
                return EntityDescription(
                    name: entity.name, idKind: entity.idKind,
                    attributes: ordered(entity.attributes, \.name).map {
                        var attribute = AttributeDescription(
                            name: $0.name, type: $0.type, isOptional: $0.isOptional, isIndexed: $0.isIndexed,
                            element: $0.element)
                        attribute.derivation = $0.derived.flatMap(Derivation.init(recorded:))
                        return attribute
                    },
                    relationships: ordered(entity.relationships, \.name).map {
                        RelationshipDescription(
                            name: $0.name, destination: $0.destination, inverse: $0.inverse,
                            cardinality: $0.cardinality,
                            isOrdered: $0.isOrdered)
                    },
                    indexes: entity.indexes, uniqueConstraints: entity.uniqueConstraints,
                    searchIndexes: entity.searchIndexes ?? [])
            }
        ).versioned(version)
        schema.recordsDeclaration = false
        return schema
    }
}
