import Foundation
import Strata

/// Seeded sibling children against a reference: 2–4 children of one parent each read a trip,
/// change a random subset of its name, budget and favourite flag (sometimes to the value it read),
/// and save into the parent in a random order under a random policy. The reference applies each
/// save as the parent's merge must: a property the child changed lands unless a sibling already
/// changed it to another value, which is a conflict — refused under `.error` (the child keeps its
/// changes, the parent is untouched), the child's value under `.objectTrumpByProperty`, the
/// parent's under `.storeTrumpByProperty`. After the last save the parent's save must write what
/// the reference holds.
extension NestedContextChecks {
    static let siblings: [ConformanceCheck] = [
        ConformanceCheck(.nestedContexts, "seededSiblingSavesMergeAsThePropertyByPropertyReferenceSays") { c in
            let seed = DurabilitySettings.seed("STRATA_SIBLINGS_SEED", default: 0x51B_1165)
            let rounds = DurabilitySettings.count("STRATA_SIBLINGS_ROUNDS", default: 16)
            print("seededSiblingSaves: seed \(seed) (STRATA_SIBLINGS_SEED), \(rounds) rounds")
            var random = SeededRandom(seed: seed)
            let (store, data) = try await c.seeded()
            for round in 0..<rounds {
                try await siblingRound(store, data.portoWine.id, &random, "seed \(seed), round \(round)")
            }
        }
    ]

    /// The properties a round changes, as the reference holds them.
    struct TripFields: Equatable {
        var name: String
        var budget: Double?
        var isFavorite: Bool

        init(_ trip: Trip) { (name, budget, isFavorite) = (trip.name, trip.budget, trip.isFavorite) }

        func applied(to trip: Trip) -> Trip {
            var changed = trip
            (changed.name, changed.budget, changed.isFavorite) = (name, budget, isFavorite)
            return changed
        }

        /// The names of the properties where `self` and `other` differ.
        func differences(from other: TripFields) -> Set<String> {
            var names: Set<String> = []
            if name != other.name { names.insert("name") }
            if budget != other.budget { names.insert("budget") }
            if isFavorite != other.isFavorite { names.insert("isFavorite") }
            return names
        }

        mutating func take(_ names: Set<String>, from other: TripFields) {
            if names.contains("name") { name = other.name }
            if names.contains("budget") { budget = other.budget }
            if names.contains("isFavorite") { isFavorite = other.isFavorite }
        }
    }

    static func siblingRound(_ store: Store, _ id: Trip.ID, _ random: inout SeededRandom, _ label: String)
        async throws
    {
        let policies: [MergePolicy] = [.error, .objectTrumpByProperty, .storeTrumpByProperty]
        let policy = policies[random.below(policies.count)]
        let parent = store.makeContext(name: "parent", mergePolicy: policy)
        let read = try expectNotNil(try await parent.fetch(Trip.self, id: id))
        var expected = TripFields(read)
        var children: [(context: ModelContext, wanted: TripFields)] = []
        for index in 0..<(2 + random.below(3)) {
            let child = parent.makeChildContext(name: "s\(index)")
            let trip = try expectNotNil(try await child.fetch(Trip.self, id: id))
            var wanted = TripFields(trip)
            if random.chance(0.5) { wanted.name = "\(label) s\(index) \(random.below(3))" }
            if random.chance(0.5) { wanted.budget = random.chance(0.2) ? nil : Double(100 * random.below(4)) }
            if random.chance(0.5) { wanted.isFavorite = random.chance(0.5) }
            try await child.update(wanted.applied(to: trip))
            children.append((child, wanted))
        }
        let base = TripFields(read)
        for index in (0..<children.count).shuffled(using: &random) {
            let (child, wanted) = children[index]
            let changed = wanted.differences(from: base)
            let overlapping = changed.intersection(expected.differences(from: base))
                .intersection(wanted.differences(from: expected))
            let context = "\(label): s\(index) under \(policy.name), changing \(changed.sorted())"
            if case .error = policy, !overlapping.isEmpty {
                _ = try await expectError(.mergeConflict, entity: "Trip") { _ = try await child.save() }
                try expect(await child.hasChanges, "\(context): the refused child keeps its changes")
            } else {
                try await child.save()
                if case .storeTrumpByProperty = policy {
                    expected.take(changed.subtracting(overlapping), from: wanted)
                } else {
                    expected.take(changed, from: wanted)
                }
            }
            let now = try expectNotNil(try await parent.fetch(Trip.self, id: id))
            try expectEqual(TripFields(now), expected, "\(context): the parent after the save")
        }
        try await parent.save()
        let stored = try expectNotNil(try await store.repository(Trip.self).fetch(id))
        try expectEqual(TripFields(stored), expected, "\(label): the parent's save writes what the reference holds")
    }
}
