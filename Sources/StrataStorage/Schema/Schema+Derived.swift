extension Schema {
    /// What a schema may declare about derived attributes (see ``Derivation``): a count names a
    /// to-many of the entity and is an `int`; a folded form names a text attribute that is not
    /// derived itself and is text; a function may have any type. A derived attribute has no
    /// timestamp, default or rename from a stored attribute the caller wrote.
    static func checkDerivations(_ entity: EntityDescription) throws {
        func fail(_ property: String, _ message: String) -> StrataError {
            StrataError(.invalidSchema, entity: entity.name, property: property, message)
        }
        for attribute in entity.attributes {
            guard let derivation = attribute.derivation else { continue }
            let name = attribute.name
            if attribute.timestamp != nil {
                throw fail(name, "\(name) cannot be both an automatic timestamp and derived")
            }
            switch derivation.source {
            case .count(let relationship):
                guard let counted = entity.relationship(relationship), !counted.isToOne else {
                    throw fail(name, "\(name) counts \(relationship), which is not a to-many of \(entity.name)")
                }
                guard attribute.type == .int else {
                    throw fail(name, "\(name) counts \(relationship), so it is an int, not \(attribute.type.rawValue)")
                }
            case .folded(let source):
                guard let input = entity.attribute(source), input.type == .string, input.derivation == nil else {
                    throw fail(name, "\(name) folds \(source), which is not a text attribute the records hold")
                }
                guard attribute.type == .string else {
                    throw fail(name, "\(name) folds text, so it is text, not \(attribute.type.rawValue)")
                }
            case .function(let function):
                guard !function.isEmpty, !function.contains(")") else {
                    throw fail(name, "\(name)'s function needs a name without parentheses")
                }
            }
        }
    }
}
