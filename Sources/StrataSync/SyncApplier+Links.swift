import Strata

/// The link lists the server sent, set once every record of the batch is staged: members the
/// client holds in the server's order, a member's unpushed move kept, and the owners whose order
/// only the server knows noted to be read again.
extension SyncApplier {
    /// Sets the deferred link lists, now that every record of the batch is staged.
    mutating func finishLinks() throws {
        try noteMisplacedOwners()
        for (key, links) in linkPasses {
            guard try workingSet.record(key.entity, id: key.id) != nil,
                let entity = workingSet.schema.entity(key.entity)
            else { continue }
            for (name, targets) in links.sorted(by: { $0.key < $1.key }) {
                // Links to a local-only entity's records stay as the client has them.
                guard let relationship = entity.relationship(name), relationship.keepsLinkList,
                    !configuration.localOnly.contains(relationship.destination)
                else { continue }
                let present = try workingSet.existing(targets, of: relationship.destination)
                guard let owner = try workingSet.record(key.entity, id: key.id) else { continue }
                let local = try workingSet.relatedIDs(of: owner, relationship)
                let wanted = try members(present, local: local, relationship)
                if local != wanted { try session.setRelated(key, name, wanted) }
            }
        }
        linkPasses.removeAll()
    }

    /// Notes the owners whose ordered list a record that arrived in this save joined, when the
    /// owner's list is not in this save and holds other members (whose order against the new one
    /// only the server knows).
    private mutating func noteMisplacedOwners() throws {
        guard !arrived.isEmpty else { return }
        let listed = Set(linkPasses.map(\.key))
        let schema = workingSet.schema
        var joining: [RecordKey: (list: RelationshipDescription, members: Set<RecordID>)] = [:]
        for key in arrived {
            guard let entity = schema.entity(key.entity), let record = try current(key) else { continue }
            for relationship in entity.relationships where relationship.isToOne {
                guard let inverse = schema.inverse(of: relationship), inverse.storage == .orderedLinks,
                    let id = RecordID(record[relationship.name])
                else { continue }
                let owner = RecordKey(entity: relationship.destination, id: id)
                guard !listed.contains(owner), !misplacedOwners.contains(owner) else { continue }
                joining[owner, default: (inverse, [])].members.insert(key.id)
            }
        }
        for (owner, joined) in joining {
            guard let held = try current(owner) else { continue }
            let members = joined.members.union(try workingSet.relatedIDs(of: held, joined.list))
            if members.count > 1 { misplacedOwners.insert(owner) }
        }
    }

    /// The members to give a list the server sent as `present` (its members this client holds).
    /// A list whose members each name their owner through a to-one (`Trip.stops`, by `Stop.trip`)
    /// takes the server's order, but its membership stays with the members' own records: a local
    /// member the server's list lacks (a record whose insert or move under this owner is still
    /// pending, or whose own change has not arrived yet) stays, after the server's members, since
    /// dropping it would clear its reference (refused outright when it is required); and a server
    /// member whose reference the client changed and has not pushed yet stays where the client
    /// put it. Other lists are the server's.
    private func members(_ present: [RecordID], local: [RecordID], _ relationship: RelationshipDescription) throws
        -> [RecordID]
    {
        guard let inverseName = followedByReference(relationship) else { return present }
        let localMembers = Set(local)
        let fromServer = present.filter { id in
            localMembers.contains(id)
                || !(pendingProperties[RecordKey(entity: relationship.destination, id: id)]?.contains(inverseName)
                    ?? false)
        }
        let listed = Set(fromServer)
        // Members this save deletes are still on the list until the save's pipeline clears it.
        return fromServer
            + (try workingSet.existing(local.filter { !listed.contains($0) }, of: relationship.destination))
    }
}
