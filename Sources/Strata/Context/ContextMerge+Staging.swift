/// Staging a context's merged changes in the save session: each record as its conflict's decision
/// says (inserts merged into the stored record they clash with, references to merged-away inserts
/// pointed at the survivors), then the to-many memberships.
extension ContextMerge {
    private func redirected(_ id: RecordID, in entity: String) -> RecordID {
        redirects[RecordKey(entity: entity, id: id)] ?? id
    }

    /// The record with its to-one references to merged-away inserts pointed at the survivors.
    private func redirected(_ input: Record) -> Record {
        guard !redirects.isEmpty, let entity = schema.entity(input.entity) else { return input }
        var record = input
        for relationship in entity.relationships where relationship.isToOne {
            if let target = RecordID(record[relationship.name]) {
                record[relationship.name] = redirected(target, in: relationship.destination).value
            }
        }
        return record
    }

    private func storedValues(_ record: Record, _ names: some Sequence<String>) -> [String: Value] {
        guard let entity = schema.entity(record.entity) else { return [:] }
        var values: [String: Value] = [:]
        for name in names where entity.isStoredProperty(name) { values[name] = record[name] }
        return values
    }

    private func storedValues(_ record: Record) -> [String: Value] { storedValues(record, record.values.keys) }

    func applyRecords() throws {
        for change in changes.records {
            let key = change.key
            switch (change.base, change.current) {
            case (nil, let inserted?):
                if keptStored.contains(key) { continue }
                let record = redirected(inserted)
                guard let conflict = conflicts[key], let existing = conflict.stored, let decision = decisions[key]
                else {
                    try session.insert(record)
                    continue
                }
                try mergeInsert(record, into: existing, decision)
            case (_?, nil):
                guard stored[key] != nil else { continue }
                switch decisions[key] {
                case nil, .objectTrumpByProperty?, .overwrite?: try session.delete(key)
                case .storeTrumpByProperty?, .rollback?, .fail?: continue
                case .use(let record)?: try session.patch(key, storedValues(record))
                }
            case (_?, let wanted?):
                let record = redirected(wanted)
                let changed = storedValues(record, change.changed)
                guard let decision = decisions[key], let conflict = conflicts[key] else {
                    if !changed.isEmpty { try session.patch(key, changed) }
                    continue
                }
                if conflict.kind == .deletedInStore {
                    switch decision {
                    case .objectTrumpByProperty, .overwrite: try session.insert(record)
                    case .use(let chosen): try session.insert(redirected(chosen))
                    case .storeTrumpByProperty, .rollback, .fail: continue
                    }
                    continue
                }
                switch decision {
                case .objectTrumpByProperty:
                    if !changed.isEmpty { try session.patch(key, changed) }
                case .storeTrumpByProperty:
                    let untouched = changed.filter { !conflict.storeChanges.contains($0.key) }
                    if !untouched.isEmpty { try session.patch(key, untouched) }
                case .overwrite:
                    try session.update(record)
                case .rollback, .fail:
                    continue
                case .use(let chosen):
                    try session.patch(key, storedValues(chosen))
                }
            case (nil, nil):
                continue
            }
        }
    }

    /// A uniqueness clash or an insert of a stored ID merged into the stored record, whose ID survives.
    private func mergeInsert(_ record: Record, into existing: Record, _ decision: MergeResolution) throws {
        let key = existing.key
        let incoming = storedValues(record)
        switch decision {
        case .objectTrumpByProperty:
            try session.patch(key, incoming.filter { !$0.value.isNull })
        case .storeTrumpByProperty:
            try session.patch(key, incoming.filter { !$0.value.isNull && existing[$0.key].isNull })
        case .overwrite:
            var replacement = record
            replacement.id = existing.id
            try session.update(replacement)
        case .rollback, .fail:
            return
        case .use(let chosen):
            try session.patch(key, storedValues(chosen))
        }
    }

    func applyMemberships() throws {
        for (index, membership) in changes.memberships.enumerated() {
            let ownerKey = RecordKey(
                entity: membership.owner.entity, id: redirected(membership.owner.id, in: membership.owner.entity))
            guard let relationship = schema.entity(ownerKey.entity)?.relationship(membership.relationship),
                let owner = try workingSet.record(ownerKey.entity, id: ownerKey.id)
            else { continue }
            let desired = membership.desired.map { redirected($0, in: relationship.destination) }
            let current = try workingSet.relatedIDs(of: owner, relationship)
            let resolved: [RecordID]
            if ownerKey != membership.owner {
                // Merged into a stored record: the new record's destinations join the survivor's.
                guard let decision = decisions[membership.owner] else { continue }
                switch decision {
                case .rollback, .fail: continue
                case .overwrite: resolved = desired
                case .objectTrumpByProperty, .storeTrumpByProperty, .use:
                    resolved = MembershipDelta(from: [], to: desired).applied(to: current)
                }
            } else if let decision = decisions[ownerKey] {
                switch decision {
                case .rollback, .fail: continue
                case .storeTrumpByProperty where movedMemberships.contains(index): continue
                case _ where conflicts[ownerKey]?.kind == .deletedInStore: resolved = desired
                case .overwrite: resolved = desired
                case .objectTrumpByProperty, .storeTrumpByProperty, .use:
                    resolved = MembershipDelta(from: membership.base, to: desired).applied(to: current)
                }
            } else if intoParent, current != membership.base {
                // A sibling changed the membership since: this child's additions and removals join it.
                resolved = MembershipDelta(from: membership.base, to: desired).applied(to: current)
            } else {
                resolved = desired
            }
            let existing = try workingSet.existing(resolved, of: relationship.destination)
            if existing != current { try session.setRelated(ownerKey, relationship.name, existing) }
        }
    }
}
