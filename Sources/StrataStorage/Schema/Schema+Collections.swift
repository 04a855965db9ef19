extension Schema {
    /// What a schema may declare about arrays, sets, dictionaries and documents: a collection names
    /// a scalar element type (no other attribute does); none is unique or part of a compound index
    /// (they have equality but no order, so no unique or range index can hold them); an array or set
    /// may be indexed (an index of its elements, for `contains`), a dictionary or document may not;
    /// declarative rules (range, length, pattern) apply to scalars only; files are not elements.
    static func checkCollections(_ entity: EntityDescription) throws {
        func fail(_ property: String, _ message: String) -> StrataError {
            StrataError(.invalidSchema, entity: entity.name, property: property, message)
        }
        for attribute in entity.attributes {
            let name = attribute.name
            if attribute.type.isCollection {
                guard let element = attribute.element, element.isScalar else {
                    throw fail(name, "\(attribute.type.rawValue) \(name) needs a scalar element type")
                }
                // A file's bytes are counted per referring record and property; a collection of
                // references would need a count per element.
                if element == .file {
                    throw fail(
                        name, "\(attribute.type.rawValue) \(name) cannot hold files: declare one file attribute each")
                }
            } else if let element = attribute.element {
                throw fail(name, "\(attribute.type.rawValue) \(name) cannot have an element type (\(element.rawValue))")
            }
            guard !attribute.type.isScalar else { continue }
            if attribute.isIndexed, attribute.type == .dictionary || attribute.type == .document {
                throw fail(
                    name,
                    "a \(attribute.type.rawValue) cannot be indexed; index an array or set, "
                        + "or a composite attribute's field")
            }
            if attribute.rules.contains(where: { if case .custom = $0.kind { false } else { true } }) {
                throw fail(
                    name, "range, length and pattern rules apply to scalars; \(name) is a \(attribute.type.rawValue)")
            }
            if let defaultValue = attribute.defaultValue, !defaultValue.isNull,
                let reason = ValueRules.violation(of: defaultValue, type: attribute.type, element: attribute.element)
            {
                throw fail(name, "default \(defaultValue): \(reason)")
            }
            for group in entity.uniqueConstraints where group.contains(name) {
                throw fail(
                    name,
                    "\(name) is a \(attribute.type.rawValue), which has no uniqueness: "
                        + "only scalars can be unique")
            }
            for group in entity.indexes where group.contains(name) {
                if group.count > 1 {
                    throw fail(
                        name,
                        "\(name) is a \(attribute.type.rawValue): it can be indexed alone, not in a compound index")
                }
                if attribute.type == .dictionary || attribute.type == .document {
                    throw fail(name, "a \(attribute.type.rawValue) cannot be indexed")
                }
            }
        }
    }
}
