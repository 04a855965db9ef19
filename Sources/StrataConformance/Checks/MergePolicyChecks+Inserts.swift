import Foundation
import Strata

/// A context's insert of an ID another save inserted since it looked: resolved by the policy, as
/// Core Data's uniquing does, instead of failing with `duplicateID`.
extension MergePolicyChecks {
    static let inserts: [ConformanceCheck] = [
        ConformanceCheck(.mergePolicies, "aContextInsertOfAnIDInsertedMeanwhileIsResolvedByItsPolicy") { c in
            let store = try await c.store()
            for (policy, expected) in [(MergePolicy.storeTrumpByProperty, "Theirs"), (.objectTrumpByProperty, "Mine")] {
                let id = "x-\(expected)"
                let context = store.makeContext(mergePolicy: policy)
                try expect(
                    try await context.insertIfAbsent(Tag(id: id, label: "Mine \(id)")), "absent when the context looked"
                )
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
        }
    ]
}
