extension Schema {
    /// A canonical text of everything that shapes stored data: entities, ID kinds, attributes and
    /// their types, relationships and how they are stored, indexes and unique constraints.
    /// Persistent backends store it and refuse to open a store written with another one
    /// (``StrataError/Code/incompatibleStore``) until migrations exist. Validation rules, defaults
    /// and delete rules are behaviour, not shape, and are left out.
    public var fingerprint: String {
        entities.sorted { $0.name < $1.name }.map { entity in
            var parts = ["\(entity.name)#\(entity.idKind.rawValue)"]
            parts += entity.attributes.sorted { $0.name < $1.name }.map {
                "\($0.name):\($0.type.rawValue)"
                    + ($0.element.map { "<\($0.rawValue)>" } ?? "") + ($0.isOptional ? "?" : "")
                    + ($0.derivation.map { "=\($0)" } ?? "")
            }
            parts += entity.relationships.sorted { $0.name < $1.name }.map {
                "\($0.name)->\($0.destination).\($0.inverse ?? "-"):\($0.storage.rawValue)"
            }
            parts += entity.indexes.map { "index(\($0.joined(separator: ",")))" }.sorted()
            parts += entity.uniqueConstraints.map { "unique(\($0.joined(separator: ",")))" }.sorted()
            parts += entity.searchIndexes.map { "search:\($0.summary)" }.sorted()
            return parts.joined(separator: " ")
        }.joined(separator: "\n")
    }
}
