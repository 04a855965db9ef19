/// Which stored name a property or entity of the new schema reads from: its own when the store
/// has it, else the one it was `renamedFrom`, if the store has that. One rule for the inference,
/// the copy and the outbox.
package enum StoredNames {
    package static func of(_ name: String, renamedFrom: String?, isStored: (String) -> Bool) -> String? {
        if isStored(name) { return name }
        if let renamedFrom, isStored(renamedFrom) { return renamedFrom }
        return nil
    }

    /// New entity name → the stored name it reads from, for every entity of `schema` that has one.
    package static func entities(of schema: Schema, isStored: (String) -> Bool) -> [String: String] {
        var names: [String: String] = [:]
        for entity in schema.entities {
            if let old = of(entity.name, renamedFrom: entity.renamedFrom, isStored: isStored) {
                names[entity.name] = old
            }
        }
        return names
    }
}
