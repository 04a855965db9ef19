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
        var deleted = Set(requestedDeletes)
        var queue = requestedDeletes
        var position = 0
        var denials: [(Record, RelationshipDescription, [RecordID])] = []
        var nullifications: [(Record, RelationshipDescription, [RecordID])] = []

        while position < queue.count {
            let wave = Array(queue[position...])
            position = queue.count
            let destinations = try relatedIDs(of: wave)
            // Every record a cascade may reach in this wave, loaded once per destination entity.
            var pendingByEntity: [String: [RecordID]] = [:]
            for key in wave {
                guard let entity = schema.entity(key.entity) else { continue }
                for relationship in entity.relationships where relationship.deleteRule == .cascade {
                    for id in destinations[LinkKey(key, relationship.name)] ?? []
                    where !deleted.contains(RecordKey(entity: relationship.destination, id: id)) {
                        pendingByEntity[relationship.destination, default: []].append(id)
                    }
                }
            }
            var loaded: [String: [RecordID: Record]] = [:]
            for (entity, ids) in pendingByEntity { loaded[entity] = try workingSet.records(entity, ids: ids) }

            for key in wave {
                guard let snapshot = deletedSnapshots[key], let entity = schema.entity(key.entity) else { continue }
                for relationship in entity.relationships {
                    let related = destinations[LinkKey(key, relationship.name)] ?? []
                    guard !related.isEmpty else { continue }
                    switch relationship.deleteRule {
                    case .cascade:
                        for id in related {
                            let destinationKey = RecordKey(entity: relationship.destination, id: id)
                            guard !deleted.contains(destinationKey),
                                let destination = loaded[relationship.destination]?[id]
                            else { continue }
                            deleted.insert(destinationKey)
                            deletedSnapshots[destinationKey] = destination
                            try workingSet.stage(
                                destinationKey, nil,
                                original: workingSet.hasEntry(destinationKey) ? .none : .some(destination))
                            queue.append(destinationKey)
                        }
                    case .deny:
                        denials.append((snapshot, relationship, related))
                    case .nullify:
                        nullifications.append((snapshot, relationship, related))
                    case .noAction:
                        break
                    }
                }
            }
        }

        for (snapshot, relationship, destinations) in denials {
            let survivors = try destinations.filter { try workingSet.record(relationship.destination, id: $0) != nil }
            if !survivors.isEmpty {
                throw StrataError(
                    .deleteDenied, entity: snapshot.entity, recordID: snapshot.id, property: relationship.name,
                    count: survivors.count,
                    "cannot delete: \(relationship.name) still has \(survivors.count) \(relationship.destination) record(s) (delete rule deny)"
                )
            }
        }

        for (snapshot, relationship, destinations) in nullifications {
            for id in destinations { try nullifyInverse(of: snapshot, relationship, destination: id) }
        }

        // A deleted record's own link lists go with it.
        for key in queue {
            guard let entity = schema.entity(key.entity) else { continue }
            for relationship in entity.relationships where relationship.keepsLinkList {
                if try !workingSet.links(key.entity, relationship: relationship.name, from: key.id).isEmpty {
                    try workingSet.stageLinks(key.entity, relationship: relationship.name, from: key.id, to: [])
                }
            }
        }
    }

    /// What every relationship of every record in `wave` points at, from the deleted snapshots:
    /// derived to-manys (the other side's to-one) in one batched referrer lookup per entity and
    /// relationship; references read off the snapshot; link lists per owner.
    private func relatedIDs(of wave: [RecordKey]) throws -> [LinkKey: [RecordID]] {
        var result: [LinkKey: [RecordID]] = [:]
        var byEntity: [String: [RecordKey]] = [:]
        var entityOrder: [String] = []
        for key in wave {
            if byEntity[key.entity] == nil { entityOrder.append(key.entity) }
            byEntity[key.entity, default: []].append(key)
        }
        for entityName in entityOrder {
            guard let entity = schema.entity(entityName), let keys = byEntity[entityName] else { continue }
            for relationship in entity.relationships {
                if relationship.storage == .inverseReference, let inverse = relationship.inverse {
                    let referrers = try workingSet.referrers(
                        relationship.destination, property: inverse, toEach: keys.map(\.id))
                    for key in keys { result[LinkKey(key, relationship.name)] = referrers[key.id] ?? [] }
                    continue
                }
                for key in keys {
                    guard let snapshot = deletedSnapshots[key] else { continue }
                    result[LinkKey(key, relationship.name)] = try workingSet.relatedIDs(of: snapshot, relationship)
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
