import Foundation
import Strata

/// A to-many membership the context read (or changed), that the store changed afterwards, and that
/// the context changes, is a conflict — whether the context changes it before or after the store
/// does, for a link list and for a to-many derived from the other side's to-one (whose owner's
/// version never moves). Every policy, every storage, both timings.
extension MergePolicyChecks {
    enum MembershipStorage: String, CaseIterable, Sendable {
        /// `Trip.tags`, the other side of the `Tag.trips` link list.
        case linkList
        /// `Person.trips`, derived from `Trip.traveller`.
        case derived
    }

    /// The scenario's three memberships: as read, the member the store adds, the one the context adds.
    struct MembershipScenario: Sendable {
        var owner: RecordKey
        var relationship: String
        var base: Set<RecordID>
        var storeAdds: RecordID
        var contextAdds: RecordID

        init(_ storage: MembershipStorage, _ data: TravelData) {
            switch storage {
            case .linkList:
                owner = RecordKey(entity: "Trip", id: data.portoWine.id.recordID)
                relationship = "tags"
                base = [data.food.id.recordID]
                storeAdds = data.beach.id.recordID
                contextAdds = data.city.id.recordID
            case .derived:
                owner = RecordKey(entity: "Person", id: data.ana.id.recordID)
                relationship = "trips"
                base = [data.lisbonSpring.id.recordID, data.portoWine.id.recordID]
                storeAdds = data.azoresHike.id.recordID
                contextAdds = data.saoPauloBusiness.id.recordID
            }
        }

        func storeLinks(_ store: Store) async throws {
            try await store.transaction { tx in try tx.link(owner.entity, id: owner.id, relationship, to: storeAdds) }
        }

        func contextLinks(_ context: ModelContext, _ data: TravelData) async throws {
            switch owner.entity {
            case "Trip":
                try await context.link(
                    Trip.tags, from: data.portoWine.id, to: try requireID(RecordKey(entity: "Tag", id: contextAdds)))
            default:
                try await context.link(
                    Person.trips, from: data.ana.id, to: try requireID(RecordKey(entity: "Trip", id: contextAdds)))
            }
        }

        func contextReads(_ context: ModelContext, _ data: TravelData) async throws -> Set<RecordID> {
            switch owner.entity {
            case "Trip": Set(try await context.related(Trip.tags, of: data.portoWine.id).map(\.id.recordID))
            default: Set(try await context.related(Person.trips, of: data.ana.id).map(\.id.recordID))
            }
        }

        func stored(_ store: Store) async throws -> Set<RecordID> {
            Set(
                try await store.read {
                    try $0.relatedRecords(owner.entity, relationship, owners: [owner.id])[owner.id] ?? []
                }.map(\.id))
        }

        /// What the store holds after the save under `policy`; `nil` when the save must fail.
        func expected(_ policy: PolicyUnderTest) -> Set<RecordID>? {
            switch policy {
            case .error: nil
            case .storeTrumpByProperty, .rollback: base.union([storeAdds])
            case .overwrite: base.union([contextAdds])
            case .objectTrumpByProperty, .custom: base.union([storeAdds, contextAdds])
            }
        }
    }

    static func membershipConflictCheck(_ storage: MembershipStorage, contextFirst: Bool, _ policy: PolicyUnderTest)
        -> ConformanceCheck
    {
        let timing = contextFirst ? "ContextChangesFirst" : "StoreChangesFirst"
        return ConformanceCheck(.mergePolicies, "toManyConflict/\(storage.rawValue)/\(timing)/\(policy.rawValue)") {
            c in
            let (store, data) = try await c.seeded()
            let scenario = MembershipScenario(storage, data)
            let context = store.makeContext(name: "editor", mergePolicy: policy.policy)
            try expectEqual(
                try await scenario.contextReads(context, data), scenario.base, "the context reads the membership")
            if contextFirst {
                try await scenario.contextLinks(context, data)
                try await scenario.storeLinks(store)
            } else {
                try await scenario.storeLinks(store)
                try await scenario.contextLinks(context, data)
            }
            guard let expected = scenario.expected(policy) else {
                let error = try await expectRejected(store, .mergeConflict, entity: scenario.owner.entity) {
                    try await context.save()
                }
                let conflict = try expectNotNil(
                    error.conflicts.first { $0.id == scenario.owner.id }, "the owner's conflict is listed")
                let membership = try expectNotNil(
                    conflict.memberships[scenario.relationship], "the conflict carries the membership")
                try expectEqual(Set(membership.base), scenario.base)
                try expectEqual(Set(membership.stored), scenario.base.union([scenario.storeAdds]))
                try expectEqual(Set(membership.context), scenario.base.union([scenario.contextAdds]))
                try expect(
                    conflict.storeChanges.contains(scenario.relationship), "the store's change names the relationship")
                return
            }
            let result = try await context.save()
            try expect(
                result.conflicts.contains { $0.id == scenario.owner.id },
                "\(policy): the conflict is reported as resolved")
            try expectEqual(try await scenario.stored(store), expected, "\(policy)")
            // The other side agrees with the owner's side.
            for member in expected {
                let inverse = try await store.read { reader -> [RecordID] in
                    let destination = scenario.owner.entity == "Trip" ? "Tag" : "Trip"
                    let name = scenario.owner.entity == "Trip" ? "trips" : "traveller"
                    if name == "traveller" {
                        return RecordID(try reader.record(destination, id: member)?["traveller"] ?? .null).map { [$0] }
                            ?? []
                    }
                    return (try reader.relatedRecords(destination, name, owners: [member])[member] ?? []).map(\.id)
                }
                try expect(inverse.contains(scenario.owner.id), "\(policy): \(member) points back at the owner")
            }
        }
    }

    static let membershipConflicts: [ConformanceCheck] = MembershipStorage.allCases.flatMap { storage in
        [true, false].flatMap { contextFirst in
            PolicyUnderTest.allCases.map { membershipConflictCheck(storage, contextFirst: contextFirst, $0) }
        }
    }
}
