/// Derived attributes (see `Derivation`): computed by the save itself, after the delete rules and
/// the before-validation hooks have settled what it writes, and before validation checks it.
extension SaveSession {
    /// Sets every derived attribute the save's changes reach: the folded forms and functions of
    /// every record it writes, and the counts of every to-many whose membership it changed —
    /// from either side, by a link, a moved reference, a delete, a cascade or a nullify.
    func deriveValues() throws {
        guard schema.hasDerivedAttributes else { return }
        try touchCountsOfDeletedMembers()
        try touchCountsTheCallerWrote()
        var entity: EntityDescription?
        // By position: a changed record is staged again in its place while the walk goes on.
        for position in workingSet.staged.indices {
            let entry = workingSet.staged[position]
            let key = entry.key
            guard var record = entry.current else { continue }
            if entity?.name != key.entity { entity = try schema.requireEntity(key.entity) }
            guard let entity, !entity.ownDerivations.isEmpty else { continue }
            var changed = false
            for (_, name, derivation) in entity.ownDerivations {
                let value = try Self.derive(derivation, of: record, attribute: name, in: entity)
                if record[name] != value {
                    record[name] = value
                    changed = true
                }
            }
            if changed { try workingSet.stage(record) }
        }
        for membership in countedMemberships.sorted(by: {
            ($0.entity, $0.relationship, $0.owner) < ($1.entity, $1.relationship, $1.owner)
        }) {
            guard var owner = try workingSet.record(membership.entity, id: membership.owner),
                let ownerEntity = schema.entity(membership.entity),
                let relationship = ownerEntity.relationship(membership.relationship),
                let slots = ownerEntity.countedRelationships[relationship.name]
            else { continue }
            let count = Value.int(Int64(try workingSet.existingMemberCount(of: owner, relationship)))
            var changed = false
            for slot in slots where owner[ownerEntity.attributes[slot].name] != count {
                owner[ownerEntity.attributes[slot].name] = count
                changed = true
            }
            if changed { try workingSet.stage(owner) }
        }
        countedMemberships.removeAll()
    }

    /// The value of an own-values derivation for `record` as the save will write it.
    static func derive(_ derivation: Derivation, of record: Record, attribute: String, in entity: EntityDescription)
        throws -> Value
    {
        switch derivation.source {
        case .count:
            return record[attribute]
        case .folded(let source):
            guard case .string(let text) = record[source] else { return .null }
            return .string(Derivation.fold(text))
        case .function(let name):
            guard let compute = derivation.compute else {
                throw StrataError(
                    .invalidSchema, entity: entity.name, recordID: record.id, property: attribute,
                    "\(attribute) is derived by the function \(name), which this process did not declare: "
                        + "write \(entity.name) records from the app that declares it")
            }
            do {
                return ValueRules.normalized(try compute(record))
            } catch let error as StrataError {
                throw error
            } catch {
                throw StrataError(
                    .validationFailed, entity: entity.name, recordID: record.id, property: attribute,
                    "the function \(name) deriving \(attribute) failed: \(error)")
            }
        }
    }

    /// A count is the engine's alone: an inserted record's is counted from its members, and an
    /// update carrying another count than the stored one (a model read before another save added
    /// a member, or a value set by hand) is counted again, so the caller's value never lands.
    private func touchCountsTheCallerWrote() throws {
        var entity: EntityDescription?
        for entry in workingSet.staged {
            guard let record = entry.current else { continue }
            if entity?.name != entry.key.entity { entity = try schema.requireEntity(entry.key.entity) }
            guard let entity, !entity.countedRelationships.isEmpty else { continue }
            for (name, slots) in entity.countedRelationships {
                guard let relationship = entity.relationship(name),
                    entry.original.map({ original in
                        slots.contains { record[entity.attributes[$0].name] != original[entity.attributes[$0].name] }
                    }) ?? true
                else { continue }
                touch(entity.name, relationship, record.id)
            }
        }
    }

    /// A deleted record leaves every counted to-many that held it, whatever the delete rule (a
    /// noAction reference dangles, and a dangling member is not counted).
    private func touchCountsOfDeletedMembers() throws {
        for entry in workingSet.staged {
            let key = entry.key
            guard entry.current == nil, let snapshot = entry.original,
                let entity = schema.entity(key.entity)
            else { continue }
            for relationship in entity.relationships {
                guard let inverse = schema.inverse(of: relationship),
                    schema.entity(relationship.destination)?.countedRelationships[inverse.name] != nil
                else { continue }
                let partners: [RecordID]
                if relationship.keepsLinkList {
                    let link = LinkKey(entity: key.entity, relationship: relationship.name, owner: key.id)
                    partners =
                        try workingSet.linkEntries[link]?.original ?? workingSet.relatedIDs(of: snapshot, relationship)
                } else {
                    partners = try workingSet.relatedIDs(of: snapshot, relationship)
                }
                for partner in partners { touch(relationship.destination, inverse, partner) }
            }
        }
    }

    /// Refuses a patch that names a derived attribute: only the engine writes one.
    func refuseDerived(_ key: RecordKey, _ names: some Sequence<String>) throws {
        guard schema.hasDerivedAttributes, let entity = schema.entity(key.entity) else { return }
        for name in names.sorted() where entity.attribute(name)?.derivation != nil {
            throw StrataError(
                .validationFailed, entity: key.entity, recordID: key.id, property: name,
                "\(name) is derived (\(entity.attribute(name)?.derivation?.description ?? "")): the save computes it")
        }
    }
}
