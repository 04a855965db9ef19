extension Schema {
    /// Full-text indexes: a non-empty name unique within the entity, at least one field, each a
    /// text attribute of the entity named once, each weight finite and positive.
    static func checkSearchIndexes(_ entity: EntityDescription) throws {
        func fail(_ property: String?, _ message: String) -> StrataError {
            StrataError(.invalidSchema, entity: entity.name, property: property, message)
        }
        var names: Set<String> = []
        for index in entity.searchIndexes {
            guard !index.name.isEmpty else { throw fail(nil, "a full-text index needs a name") }
            guard names.insert(index.name).inserted else {
                throw fail(nil, "two full-text indexes are named \(index.name)")
            }
            guard !index.fields.isEmpty else { throw fail(nil, "full-text index \(index.name) indexes no attribute") }
            var attributes: Set<String> = []
            for field in index.fields {
                guard let attribute = entity.attribute(field.attribute) else {
                    throw fail(
                        field.attribute,
                        "full-text index \(index.name) names \(field.attribute), "
                            + "which is not an attribute of \(entity.name)"
                    )
                }
                guard attribute.type == .string else {
                    throw fail(
                        field.attribute,
                        "full-text index \(index.name) names \(field.attribute), "
                            + "which is \(attribute.type.rawValue), not text"
                    )
                }
                guard attributes.insert(field.attribute).inserted else {
                    throw fail(field.attribute, "full-text index \(index.name) names \(field.attribute) twice")
                }
                guard field.weight.isFinite, field.weight > 0 else {
                    throw fail(
                        field.attribute,
                        "full-text index \(index.name) gives \(field.attribute) a weight that is not positive")
                }
            }
        }
    }
}
