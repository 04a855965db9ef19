import Foundation
import Strata

/// A context's insert of an ID another save inserted since it looked: resolved by the policy, as
/// Core Data's uniquing does, instead of failing with `duplicateID` — and a context's
/// `insertIfAbsent` holds at save: the stored record is kept, whatever the policy.
extension MergePolicyChecks {
    static let inserts: [ConformanceCheck] = [
        ConformanceCheck(.mergePolicies, "aContextInsertOfAnIDInsertedMeanwhileIsResolvedByItsPolicy") { c in
            let store = try await c.store()
            for (policy, expected) in [(MergePolicy.storeTrumpByProperty, "Theirs"), (.objectTrumpByProperty, "Mine")] {
                let id = "x-\(expected)"
                let context = store.makeContext(mergePolicy: policy)
                try await context.insert(Tag(id: id, label: "Mine \(id)"))
                try await store.repository(Tag.self).insert(Tag(id: id, label: "Theirs \(id)"))
                try await context.save()
                try expectEqual(try await store.repository(Tag.self).fetch(id)?.label, "\(expected) \(id)", "\(policy)")
            }
            let context = store.makeContext()
            try await context.insert(Tag(id: "y", label: "Mine y"))
            try await store.repository(Tag.self).insert(Tag(id: "y", label: "Theirs y"))
            let error = try await expectError(.mergeConflict) { try await context.save() }
            try expectEqual(error.conflicts.map(\.kind), [.insertedInStore], "the default policy reports it")
            try expectEqual(
                try await store.repository(Tag.self).fetch("y")?.label, "Theirs y", "and keeps the store as it was")
        },
        ConformanceCheck(.mergePolicies, "concurrentUnitsOfWorkThatGetOrCreateOneRecordAllSucceed") { c in
            let store = try await c.store()
            let units = 8
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<units {
                    group.addTask {
                        try await store.unitOfWork { unit in
                            _ = try await unit.repository(Tag.self).insertIfAbsent(
                                Tag(id: "shared", label: "U\(index)"))
                            try await unit.repository(Tag.self).insert(Tag(id: "own-\(index)", label: "Own \(index)"))
                        }
                    }
                }
                try await group.waitForAll()
            }
            try expectEqual(try await store.repository(Tag.self).count(), units + 1, "one shared tag, every unit's own")
            let label = try expectNotNil(try await store.repository(Tag.self).fetch("shared")).label
            try expect(label.hasPrefix("U"), "the shared tag is one unit's: \(label)")
        },
        ConformanceCheck(.mergePolicies, "seededContextsThatInsertIfAbsentSaveAsTheReferenceSays") { c in
            let seed = DurabilitySettings.seed("STRATA_GET_OR_CREATE_SEED", default: 0x6E7_C0DE)
            let rounds = DurabilitySettings.count("STRATA_GET_OR_CREATE_ROUNDS", default: 12)
            print("seededContextsThatInsertIfAbsent: seed \(seed) (STRATA_GET_OR_CREATE_SEED), \(rounds) rounds")
            var random = SeededRandom(seed: seed)
            let store = try await c.store()
            for round in 0..<rounds {
                try await getOrCreateRound(round, &random, store, "seed \(seed), round \(round)")
            }
        },
    ]

    /// One round: 2–5 contexts, each with a random policy, stage `insertIfAbsent` of one ID (some
    /// change it afterwards, which makes it a plain insert) and a record of their own, then save in
    /// a random order; each save is compared with a reference of what the store must then hold.
    private static func getOrCreateRound(
        _ round: Int, _ random: inout SeededRandom, _ store: Store, _ replay: String
    ) async throws {
        let policies: [MergePolicy] = [.error, .objectTrumpByProperty, .storeTrumpByProperty, .overwrite, .rollback]
        let id = "g\(round)"
        var contexts: [(context: ModelContext, label: String, changed: Bool, policy: MergePolicy)] = []
        for index in 0..<random.int(2...5) {
            let policy = random.pick(policies)
            let context = store.makeContext(mergePolicy: policy)
            try expect(try await context.insertIfAbsent(Tag(id: id, label: "\(id) c\(index)")), "\(replay): absent")
            let changed = random.chance(0.3)
            let label = changed ? "\(id) c\(index) changed" : "\(id) c\(index)"
            if changed { try await context.update(Tag(id: id, label: label)) }
            try await context.insert(Tag(id: "\(id)-own\(index)", label: "\(id) own \(index)"))
            contexts.append((context, label, changed, policy))
        }
        var stored: String?
        for index in contexts.indices.shuffled(using: &random) {
            let (context, label, changed, policy) = contexts[index]
            let what = "\(replay): context \(index) (\(policy.name), \(changed ? "changed" : "unchanged")) saves"
            // The reference: an unchanged insertIfAbsent keeps what is stored; a changed one is an
            // insert, and its clash with the stored ID is the policy's.
            var expected = stored ?? label
            var fails = false
            if stored != nil, changed {
                switch policy {
                case .error: fails = true
                case .objectTrumpByProperty, .overwrite: expected = label
                default: break
                }
            }
            if fails {
                var refused: StrataError?
                do { try await context.save() } catch let error as StrataError { refused = error }
                try expectEqual(refused?.code, .mergeConflict, "\(what): the reference refuses it")
                try expectEqual(refused?.conflicts.map(\.kind), [.insertedInStore], what)
                try expect(
                    try await store.repository(Tag.self).fetch("\(id)-own\(index)") == nil, "\(what): nothing written")
            } else {
                try await context.save()
                stored = expected
                let held = try await context.fetch(Tag.self, id: id)?.label
                try expectEqual(held, expected, "\(what): the context holds what is stored")
                try expect(
                    try await store.repository(Tag.self).fetch("\(id)-own\(index)") != nil, "\(what): its own record")
            }
            try expectEqual(try await store.repository(Tag.self).fetch(id)?.label, stored, what)
        }
    }
}
