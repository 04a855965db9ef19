/// Inverse upkeep and to-many membership changes.
extension SaveSession {
    /// Keeps the other side of a to-one consistent after `owner`'s reference moved from `old` to `new`.
    func maintainInverse(owner: RecordKey, _ relationship: RelationshipDescription, old: RecordID?, new: RecordID?)
        throws
    {
        guard let inverse = schema.inverse(of: relationship) else { return }
        let destination = relationship.destination
        switch inverse.storage {
        case .reference:
            // One-to-one: the old partner lets go; the new partner points back, and whoever it
            // pointed at before loses it (re-pointing B at A clears C that pointed at A).
            if let old, var oldPartner = try workingSet.record(destination, id: old),
                oldPartner[inverse.name] == owner.id.value
            {
                oldPartner[inverse.name] = .null
                try workingSet.stage(oldPartner)
            }
            if let new, var newPartner = try workingSet.record(destination, id: new) {
                let previous = RecordID(newPartner[inverse.name])
                if previous != owner.id {
                    if let previous, var robbed = try workingSet.record(owner.entity, id: previous),
                        robbed[relationship.name] == new.value
                    {
                        robbed[relationship.name] = .null
                        try workingSet.stage(robbed)
                    }
                    newPartner[inverse.name] = owner.id.value
                    try workingSet.stage(newPartner)
                }
            }
        case .orderedLinks:
            if let old {
                var list = try workingSet.links(destination, relationship: inverse.name, from: old)
                if list.contains(owner.id) {
                    list.removeAll { $0 == owner.id }
                    try workingSet.stageLinks(destination, relationship: inverse.name, from: old, to: list)
                }
                touch(destination, inverse, old)
            }
            if let new, try workingSet.record(destination, id: new) != nil {
                var list = try workingSet.links(destination, relationship: inverse.name, from: new)
                if !list.contains(owner.id) {
                    list.append(owner.id)
                    try workingSet.stageLinks(destination, relationship: inverse.name, from: new, to: list)
                }
                touch(destination, inverse, new)
            }
        case .inverseReference:
            if let old { touch(destination, inverse, old) }
            if let new { touch(destination, inverse, new) }
        case .links, .inverseLinks:
            break
        }
    }

    /// For a record being inserted: one-to-one partners that already point at it (inserted earlier
    /// in the same save) are adopted, or robbed if the record names another partner.
    func adoptOneToOnePointers(_ input: Record, entity: EntityDescription) throws -> Record {
        var record = input
        for relationship in entity.relationships where relationship.isToOne {
            guard let inverse = schema.inverse(of: relationship), inverse.storage == .reference else { continue }
            let pointers = try workingSet.referrers(relationship.destination, property: inverse.name, to: record.id)
            guard !pointers.isEmpty else { continue }
            let keep = RecordID(record[relationship.name]) ?? pointers[0]
            record[relationship.name] = keep.value
            for pointer in pointers where pointer != keep {
                if var other = try workingSet.record(relationship.destination, id: pointer) {
                    other[inverse.name] = .null
                    try workingSet.stage(other)
                }
            }
        }
        return record
    }

    /// For a record being inserted: records staged earlier in the same save whose to-one already
    /// names it (a child inserted or moved under it before it existed) join its ordered to-many
    /// list, as they would have had it existed, so the list and the references agree (a cascade
    /// follows the list).
    func adoptListMembers(_ key: RecordKey, entity: EntityDescription) throws {
        for relationship in entity.relationships where relationship.storage == .orderedLinks {
            guard let inverse = schema.inverse(of: relationship), inverse.isToOne else { continue }
            let members = workingSet.stagedReferrers(relationship.destination, property: inverse.name, to: key.id)
            guard !members.isEmpty else { continue }
            var list = try workingSet.links(key.entity, relationship: relationship.name, from: key.id)
            let listed = Set(list)
            list += members.filter { !listed.contains($0) }
            try workingSet.stageLinks(key.entity, relationship: relationship.name, from: key.id, to: list)
            touch(key.entity, relationship, key.id)
        }
    }

    func requireRelationship(_ entityName: String, _ name: String) throws -> RelationshipDescription {
        let entity = try schema.requireEntity(entityName)
        guard let relationship = entity.relationship(name) else {
            throw StrataError(
                .unknownProperty, entity: entityName, property: name, "\(name) is not a relationship of \(entityName)")
        }
        return relationship
    }

    private func requireTarget(_ relationship: RelationshipDescription, _ owner: RecordKey, _ target: RecordID) throws {
        guard try workingSet.record(relationship.destination, id: target) != nil else {
            throw StrataError(
                .invalidReference, entity: owner.entity, recordID: owner.id, property: relationship.name,
                "\(relationship.destination)(\(target)) does not exist")
        }
    }

    private func requireOwner(_ owner: RecordKey) throws -> Record {
        guard let record = try workingSet.record(owner.entity, id: owner.id) else {
            throw StrataError(.notFound, entity: owner.entity, recordID: owner.id, "record does not exist")
        }
        return record
    }

    /// Adds `target` to `owner`'s relationship (for a to-one: points it at `target`).
    package func link(_ ownerKey: RecordKey, _ name: String, _ targetID: RecordID) throws {
        let (owner, target) = (ownerKey.normalized, ValueRules.normalized(targetID))
        let relationship = try requireRelationship(owner.entity, name)
        _ = try requireOwner(owner)
        try requireTarget(relationship, owner, target)
        switch relationship.storage {
        case .reference:
            try assign(owner, name, target.value)
        case .inverseReference, .orderedLinks:
            guard let inverse = relationship.inverse else { return }
            try assign(RecordKey(entity: relationship.destination, id: target), inverse, owner.id.value)
        case .links:
            var list = try workingSet.links(owner.entity, relationship: name, from: owner.id)
            guard !list.contains(target) else { return }
            list.append(target)
            try workingSet.stageLinks(owner.entity, relationship: name, from: owner.id, to: list)
            try touchBothSides(relationship, owner, target)
        case .inverseLinks:
            guard let inverse = relationship.inverse else { return }
            var list = try workingSet.links(relationship.destination, relationship: inverse, from: target)
            guard !list.contains(owner.id) else { return }
            list.append(owner.id)
            try workingSet.stageLinks(relationship.destination, relationship: inverse, from: target, to: list)
            try touchBothSides(relationship, owner, target)
        }
    }

    /// Removes `target` from `owner`'s relationship (for a to-one: clears it if it points there).
    package func unlink(_ ownerKey: RecordKey, _ name: String, _ targetID: RecordID) throws {
        let (owner, target) = (ownerKey.normalized, ValueRules.normalized(targetID))
        let relationship = try requireRelationship(owner.entity, name)
        let ownerRecord = try requireOwner(owner)
        switch relationship.storage {
        case .reference:
            if ownerRecord[name] == target.value { try assign(owner, name, .null) }
        case .inverseReference, .orderedLinks:
            guard let inverse = relationship.inverse,
                let destination = try workingSet.record(relationship.destination, id: target),
                destination[inverse] == owner.id.value
            else { return }
            try assign(destination.key, inverse, .null)
        case .links:
            var list = try workingSet.links(owner.entity, relationship: name, from: owner.id)
            guard list.contains(target) else { return }
            list.removeAll { $0 == target }
            try workingSet.stageLinks(owner.entity, relationship: name, from: owner.id, to: list)
            try touchBothSides(relationship, owner, target)
        case .inverseLinks:
            guard let inverse = relationship.inverse else { return }
            var list = try workingSet.links(relationship.destination, relationship: inverse, from: target)
            guard list.contains(owner.id) else { return }
            list.removeAll { $0 == owner.id }
            try workingSet.stageLinks(relationship.destination, relationship: inverse, from: target, to: list)
            try touchBothSides(relationship, owner, target)
        }
    }

    /// Makes `owner`'s relationship hold exactly `targets`, in this order when it is ordered.
    package func setRelated(_ ownerKey: RecordKey, _ name: String, _ targetIDs: [RecordID]) throws {
        let (owner, targets) = (ownerKey.normalized, targetIDs.map(ValueRules.normalized))
        let relationship = try requireRelationship(owner.entity, name)
        let ownerRecord = try requireOwner(owner)
        var seen: Set<RecordID> = []
        let wanted = targets.filter { seen.insert($0).inserted }
        for target in wanted { try requireTarget(relationship, owner, target) }
        if relationship.isToOne {
            guard wanted.count <= 1 else {
                throw StrataError(
                    .relationshipCount, entity: owner.entity, recordID: owner.id, property: name,
                    count: wanted.count, "a to-one holds at most one record")
            }
            try assign(owner, name, wanted.first?.value ?? .null)
            return
        }
        let current = try workingSet.relatedIDs(of: ownerRecord, relationship)
        for target in current where !seen.contains(target) { try unlink(owner, name, target) }
        for target in wanted { try link(owner, name, target) }
        if relationship.keepsLinkList {
            try workingSet.stageLinks(owner.entity, relationship: name, from: owner.id, to: wanted)
        }
    }

    private func touchBothSides(_ relationship: RelationshipDescription, _ owner: RecordKey, _ target: RecordID) throws
    {
        touch(owner.entity, relationship, owner.id)
        if let inverse = schema.inverse(of: relationship) { touch(relationship.destination, inverse, target) }
    }
}
