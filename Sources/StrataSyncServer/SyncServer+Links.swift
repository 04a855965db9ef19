import Foundation
import Strata
import StrataSync

/// Applying a pushed put's link deltas.
extension SyncServer {
    /// Applies a put's link deltas: many-to-many element by element (a target the caller may not
    /// write into is dropped, as an absent one is); an ordered list is reordered (its members
    /// follow their own to-one references). Returns whether a target was dropped: the put is
    /// still applied, but what the server holds is not what the client sent, so its answer
    /// carries the record's state for the client to converge on.
    @discardableResult
    static func applyLinks(_ mutation: SyncMutation, by view: AccessView?, _ session: SaveSession) throws -> Bool {
        let workingSet = session.workingSet
        guard let owner = try workingSet.record(mutation.entity, id: mutation.recordID),
            let entity = workingSet.schema.entity(mutation.entity)
        else { return false }
        var dropped = false
        for (name, delta) in mutation.links.sorted(by: { $0.key < $1.key }) {
            guard let relationship = entity.relationship(name) else { continue }
            switch relationship.storage {
            case .links:
                for target in delta.removed { try session.unlink(owner.key, name, target) }
                let targets = try linkable(delta.added, of: relationship.destination, by: view, in: session)
                if targets.count < Set(delta.added).count { dropped = true }
                for target in targets {
                    try session.link(owner.key, name, target)
                }
                if relationship.isOrdered { try reorder(owner, relationship, delta.order, session) }
            case .orderedLinks:
                try reorder(owner, relationship, delta.order, session)
            case .reference, .inverseReference, .inverseLinks:
                continue
            }
        }
        return dropped
    }

    /// Puts the current members of an ordered relationship in the order given; members the order
    /// does not name keep their relative order after those it does.
    static func reorder(
        _ owner: Record, _ relationship: RelationshipDescription, _ order: [RecordID], _ session: SaveSession
    ) throws {
        let stored = try session.workingSet.relatedIDs(of: owner, relationship)
        var current = stored
        // Members follow the destinations' own references, which may have been staged before the
        // owner existed: add those the list misses.
        if relationship.storage == .orderedLinks, let inverse = relationship.inverse {
            let listed = Set(current)
            current += try session.workingSet.referrers(relationship.destination, property: inverse, to: owner.id)
                .filter { !listed.contains($0) }
        }
        // A member deleted earlier in the batch leaves the list with it.
        let present = try session.workingSet.records(relationship.destination, ids: current)
        current = current.filter { present[$0] != nil }
        let members = Set(current)
        var seen: Set<RecordID> = []
        var wanted = order.filter { members.contains($0) && seen.insert($0).inserted }
        wanted += current.filter { !seen.contains($0) }
        if wanted != stored { try session.setRelated(owner.key, relationship.name, wanted) }
    }
}
