/// Loading records that already have identities, versions and link lists (an import, a copy;
/// see `SaveSession.loading`).
extension SaveSession {
    /// Stages a loaded record as it is (see `loading`): values validated, its version kept, no
    /// inverse upkeep. An existing ID is `StrataError.Code.duplicateID`.
    package func load(_ input: Record, links: [String: [RecordID]]) throws {
        var record = try normalize(input, inserting: true)
        record.version = max(1, input.version)
        let key = record.key
        if workingSet.hasEntry(key) { throw duplicate(key) }
        noteUnchecked(key)
        try workingSet.stage(key, record, original: .some(nil))
        let entity = try schema.requireEntity(key.entity)
        for (name, targets) in links.sorted(by: { $0.key < $1.key }) {
            guard let relationship = entity.relationship(name), relationship.keepsLinkList else {
                throw StrataError(
                    .unknownProperty, entity: key.entity, recordID: key.id, property: name,
                    "\(name) is not a link list of \(key.entity)")
            }
            try workingSet.stageLinks(
                key.entity, relationship: name, from: key.id, to: targets.map(ValueRules.normalized))
        }
    }

    /// Removes a record as a load does (see `loading`): no delete rules, its own link lists
    /// cleared; references to it left for the load's end to settle. Absent records are skipped.
    package func unload(_ input: RecordKey) throws {
        let key = input.normalized
        let entity = try schema.requireEntity(key.entity)
        guard let existing = try workingSet.record(key.entity, id: key.id) else { return }
        deletedSnapshots[key] = existing
        try workingSet.stage(key, nil)
        for relationship in entity.relationships where relationship.keepsLinkList {
            if try !workingSet.links(key.entity, relationship: relationship.name, from: key.id).isEmpty {
                try workingSet.stageLinks(key.entity, relationship: relationship.name, from: key.id, to: [])
            }
        }
    }
}
