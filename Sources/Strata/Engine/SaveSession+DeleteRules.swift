/// Expands the requested deletes by their relationships' delete rules.
extension SaveSession {
    /// Cascades first (the whole closure, cycles terminating), then checks every deny against the
    /// final set — destinations deleted in the same save do not count — then nullifies survivors.
    ///
    /// The closure grows in waves (every record deleted by the previous wave), and each wave reads
    /// in set-sized operations: the referrers of all its records of an entity in one batched
    /// lookup per relationship, the records a cascade reaches in one batched load. The order in
    /// which records are staged — and so written and named in history — is the order of a
    /// record-by-record walk.
    func expandDeletes() throws {
        var queue = requestedDeletes.compactMap { key in
            deletedSnapshots[key].map { Doomed(key: key, snapshot: $0, back: nil) }
        }
        var position = 0
        var denials: [(Record, RelationshipDescription, [RecordID])] = []
        var nullifications: [(Record, RelationshipDescription, [RecordID])] = []
        var entities = EntityRun(schema)

        while position < queue.count {
            let wave = queue[position...]
            position = queue.count
            let destinations = try relatedIDs(of: wave)
            // Every record a cascade may reach in this wave, loaded once per destination entity
            // (records this save already deleted are not returned); children whose own rules need
            // nothing of them are read as versions alone.
            var pendingByEntity: [String: [RecordID]] = [:]
            var pendingVersions: [String: [RecordID]] = [:]
            for doomed in wave where !evicted.contains(doomed.key) {
                guard let entity = entities.describe(doomed.key.entity) else { continue }
                for relationship in entity.relationships
                where relationship.deleteRule == .cascade && relationship.name != doomed.back
                    && rulesReach(relationship)
                {
                    guard let ids = destinations[LinkKey(doomed.key, relationship.name)] else { continue }
                    if cascadesByVersion(relationship, from: entity) {
                        pendingVersions[relationship.destination, default: []].append(contentsOf: ids)
                    } else {
                        pendingByEntity[relationship.destination, default: []].append(contentsOf: ids)
                    }
                }
            }
            var loaded: [String: [RecordID: Record]] = [:]
            for (entity, ids) in pendingByEntity {
                let found = try workingSet.records(entity, ids: ids)
                workingSet.reserve(found.count)
                queue.reserveCapacity(queue.count + found.count)
                loaded[entity] = found
            }
            var versions: [String: [RecordID: Int64]] = [:]
            for (entity, ids) in pendingVersions {
                let found = try workingSet.versions(entity, ids: ids)
                workingSet.reserve(found.count)
                versions[entity] = found
            }

            // An evicted record leaves the lists that name it, which would otherwise name a record
            // this store no longer holds; no other rule of it acts (the server keeps it and what
            // it relates to).
            for doomed in wave where evicted.contains(doomed.key) {
                guard let entity = entities.describe(doomed.key.entity) else { continue }
                for relationship in entity.relationships where relationship.name != doomed.back {
                    guard schema.inverse(of: relationship)?.keepsLinkList == true,
                        let related = destinations[LinkKey(doomed.key, relationship.name)], !related.isEmpty
                    else { continue }
                    nullifications.append((doomed.snapshot, relationship, related))
                }
            }
            for doomed in wave where !evicted.contains(doomed.key) {
                guard let entity = entities.describe(doomed.key.entity) else { continue }
                for relationship in entity.relationships
                where relationship.name != doomed.back && rulesReach(relationship) {
                    let related = destinations[LinkKey(doomed.key, relationship.name)] ?? []
                    guard !related.isEmpty else { continue }
                    switch relationship.deleteRule {
                    case .cascade:
                        // A record found by its reference to the deleted one points back at it.
                        let back = relationship.storage == .inverseReference ? relationship.inverse : nil
                        if cascadesByVersion(relationship, from: entity) {
                            stageByVersion(related, of: relationship.destination, versions)
                            continue
                        }
                        let pool = loaded[relationship.destination] ?? [:]
                        for id in related {
                            guard let destination = pool[id] else { continue }
                            if let reach = deleteRulesReach, !deleteRulesReachAll(relationship.destination),
                                try !reach(destination)
                            {
                                nullifications.append((doomed.snapshot, relationship, [id]))
                                continue
                            }
                            let key = RecordKey(entity: relationship.destination, id: id)
                            guard workingSet.stageDeletion(key, current: destination) else { continue }
                            queue.append(Doomed(key: key, snapshot: destination, back: back))
                        }
                    case .deny:
                        denials.append((doomed.snapshot, relationship, related))
                    case .nullify:
                        nullifications.append((doomed.snapshot, relationship, related))
                    case .noAction:
                        break
                    }
                }
            }
        }

        for (snapshot, relationship, destinations) in denials {
            var survivors: [RecordID] = []
            for id in destinations {
                guard let survivor = try workingSet.record(relationship.destination, id: id) else { continue }
                if let reach = deleteRulesReach, !deleteRulesReachAll(relationship.destination), try !reach(survivor) {
                    nullifications.append((snapshot, relationship, [id]))
                } else {
                    survivors.append(id)
                }
            }
            // A mirrored deletion (a sync client applying the server's tombstone) already passed
            // the server's deny against the server's records; local referrers are changes the
            // server has not seen yet (their push will be answered) or records whose own changes
            // are still on their way. Refusing would fail every later sync of the client for
            // good; they keep their reference (as under noAction) until those answers arrive.
            if !survivors.isEmpty, !mirrorsRemoteState {
                throw StrataError(
                    .deleteDenied, entity: snapshot.entity, recordID: snapshot.id, property: relationship.name,
                    count: survivors.count,
                    "cannot delete: \(relationship.name) still has \(survivors.count) \(relationship.destination) "
                        + "record(s) (delete rule deny)")
            }
        }

        for (snapshot, relationship, destinations) in nullifications {
            for id in destinations { try nullifyInverse(of: snapshot, relationship, destination: id) }
        }

        // A deleted record's own link lists go with it.
        for doomed in queue {
            guard let entity = entities.describe(doomed.key.entity),
                entity.relationships.contains(where: \.keepsLinkList)
            else { continue }
            let key = doomed.key
            for relationship in entity.relationships where relationship.keepsLinkList {
                if try !workingSet.links(key.entity, relationship: relationship.name, from: key.id).isEmpty {
                    try workingSet.stageLinks(key.entity, relationship: relationship.name, from: key.id, to: [])
                }
            }
        }
    }

    /// Whether a deleted record's rule acts along `relationship` (see ``mirroredRulesReach``);
    /// where it does not, the relationship is left as under noAction. Taking the deleted record out
    /// of the other side's link lists (a many-to-many's nullify) always acts: it only keeps those
    /// lists naming records that exist, as the other store's did.
    func rulesReach(_ relationship: RelationshipDescription) -> Bool {
        guard let reach = mirroredRulesReach, !reach(relationship.destination) else { return true }
        guard relationship.deleteRule == .nullify, let name = relationship.inverse,
            let inverse = schema.entity(relationship.destination)?.relationship(name)
        else { return false }
        return !inverse.isToOne
    }

    /// Whether the records a cascade along `relationship` reaches need nothing but their IDs and
    /// versions: their one relationship is the reference back at the record being deleted (so no
    /// rule of theirs reaches further), the parent counts no derived value over them, they hold no
    /// file (whose reference count the delete lowers), and no hook
    /// or commit participant reads what a delete of them removes. History names a delete by its
    /// version alone, and the backend deletes by ID, so such children are never decoded.
    private func cascadesByVersion(_ relationship: RelationshipDescription, from parent: EntityDescription) -> Bool {
        guard deleteRulesReach == nil || deleteRulesReachAll(relationship.destination),
            relationship.storage == .inverseReference, let back = relationship.inverse,
            parent.countedRelationships[relationship.name] == nil,
            let child = schema.entity(relationship.destination), child.relationships.count == 1,
            child.relationships[0].name == back, child.searchIndexes.isEmpty, !child.holdsFiles
        else { return false }
        return !hooks.reads(child.name) && !commitParticipants.contains { $0.readsDeletedRecords(of: child.name) }
    }

    /// Stages the delete of every record among `ids` that exists now, from its version alone: its
    /// last state in the working set is a record with no values (see `cascadesByVersion`). Such a
    /// record joins no later wave: its one relationship points back at the record being deleted,
    /// so it reaches nothing, and it keeps no link list.
    private func stageByVersion(_ ids: [RecordID], of entity: String, _ versions: [String: [RecordID: Int64]]) {
        guard let pool = versions[entity] else { return }
        for id in ids {
            guard let version = pool[id] else { continue }
            _ = workingSet.stageDeletion(
                RecordKey(entity: entity, id: id), current: Record(entity: entity, id: id, version: version))
        }
    }

    /// What every relationship of every record in `wave` points at, from the deleted snapshots:
    /// derived to-manys (the other side's to-one) in one batched referrer lookup per entity and
    /// relationship; references read off the snapshot; link lists per owner. A record's `back`
    /// relationship is not read: it points at a record this save deletes.
    private func relatedIDs(of wave: ArraySlice<Doomed>) throws -> [LinkKey: [RecordID]] {
        var result: [LinkKey: [RecordID]] = [:]
        // The wave's positions grouped by entity, in first-seen order; a run of one entity (the
        // children a cascade reached) is grouped without hashing its name per record.
        var groups: [(entity: String, members: [Int])] = []
        var groupOf: [String: Int] = [:]
        var current = -1
        for position in wave.indices {
            let name = wave[position].key.entity
            if current < 0 || groups[current].entity != name {
                if let found = groupOf[name] {
                    current = found
                } else {
                    current = groups.count
                    groupOf[name] = current
                    groups.append((name, []))
                }
            }
            groups[current].members.append(position)
        }
        for group in groups {
            guard let entity = schema.entity(group.entity) else { continue }
            for relationship in entity.relationships {
                if relationship.storage == .inverseReference, let inverse = relationship.inverse {
                    let referrers = try workingSet.referrers(
                        relationship.destination, property: inverse, toEach: group.members.map { wave[$0].key.id })
                    for member in group.members {
                        let key = wave[member].key
                        result[LinkKey(key, relationship.name)] = referrers[key.id] ?? []
                    }
                    continue
                }
                for member in group.members where wave[member].back != relationship.name {
                    result[LinkKey(wave[member].key, relationship.name)] = try workingSet.relatedIDs(
                        of: wave[member].snapshot, relationship)
                }
            }
        }
        return result
    }

    /// Removes the deleted record from a surviving destination's side of the relationship.
    private func nullifyInverse(of deleted: Record, _ relationship: RelationshipDescription, destination id: RecordID)
        throws
    {
        guard let inverse = schema.inverse(of: relationship),
            var destination = try workingSet.record(relationship.destination, id: id)
        else { return }
        switch inverse.storage {
        case .reference:
            guard destination[inverse.name] == deleted.id.value else { return }
            destination[inverse.name] = .null
            try workingSet.stage(destination)
            touch(relationship.destination, inverse, id)
        case .orderedLinks, .links:
            var list = try workingSet.links(relationship.destination, relationship: inverse.name, from: id)
            guard list.contains(deleted.id) else { return }
            list.removeAll { $0 == deleted.id }
            try workingSet.stageLinks(relationship.destination, relationship: inverse.name, from: id, to: list)
            touch(relationship.destination, inverse, id)
        case .inverseReference, .inverseLinks:
            // Derived from the deleted side, which is gone.
            touch(relationship.destination, inverse, id)
        }
    }
}

/// A record the delete rules remove: its last state, and — when a cascade reached it through its
/// own reference to the record being deleted — the name of that to-one, which the rules skip (it
/// points at a record this save deletes: nothing to cascade, deny or nullify there).
struct Doomed {
    let key: RecordKey
    let snapshot: Record
    let back: String?
}

/// The description of the entity of a run of records, looked up once per run rather than per record.
struct EntityRun {
    let schema: Schema
    private var last: EntityDescription?

    init(_ schema: Schema) { self.schema = schema }

    mutating func describe(_ name: String) -> EntityDescription? {
        if let last, last.name == name { return last }
        last = schema.entity(name)
        return last
    }
}
