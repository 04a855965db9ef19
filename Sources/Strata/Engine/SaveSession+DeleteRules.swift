/// Expands the requested deletes by their relationships' delete rules.
extension SaveSession {
    /// Cascades first (the whole closure, cycles terminating), then checks every deny against the
    /// final set — destinations deleted in the same save do not count — then nullifies survivors.
    func expandDeletes() throws {
        var deleted = Set(requestedDeletes)
        var queue = requestedDeletes
        var position = 0
        var denials: [(Record, RelationshipDescription, [RecordID])] = []
        var nullifications: [(Record, RelationshipDescription, [RecordID])] = []

        while position < queue.count {
            let key = queue[position]
            position += 1
            guard let snapshot = deletedSnapshots[key], let entity = schema.entity(key.entity) else { continue }
            for relationship in entity.relationships {
                let destinations = try workingSet.relatedIDs(of: snapshot, relationship)
                guard !destinations.isEmpty else { continue }
                switch relationship.deleteRule {
                case .cascade:
                    let pending = destinations.filter { !deleted.contains(RecordKey(entity: relationship.destination, id: $0)) }
                    let loaded = try workingSet.records(relationship.destination, ids: pending)
                    for id in pending {
                        let destinationKey = RecordKey(entity: relationship.destination, id: id)
                        guard !deleted.contains(destinationKey), let destination = loaded[id] else { continue }
                        deleted.insert(destinationKey)
                        deletedSnapshots[destinationKey] = destination
                        try workingSet.stage(destinationKey, nil, original: workingSet.hasEntry(destinationKey) ? .none : .some(destination))
                        queue.append(destinationKey)
                    }
                case .deny:
                    denials.append((snapshot, relationship, destinations))
                case .nullify:
                    nullifications.append((snapshot, relationship, destinations))
                case .noAction:
                    break
                }
            }
        }

        for (snapshot, relationship, destinations) in denials {
            let survivors = try destinations.filter { try workingSet.record(relationship.destination, id: $0) != nil }
            if !survivors.isEmpty {
                throw StrataError(
                    .deleteDenied, entity: snapshot.entity, recordID: snapshot.id, property: relationship.name,
                    count: survivors.count,
                    "cannot delete: \(relationship.name) still has \(survivors.count) \(relationship.destination) record(s) (delete rule deny)")
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

    /// Removes the deleted record from a surviving destination's side of the relationship.
    private func nullifyInverse(of deleted: Record, _ relationship: RelationshipDescription, destination id: RecordID) throws {
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
