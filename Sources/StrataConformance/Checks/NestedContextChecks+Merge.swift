import Foundation
import Strata

/// A child's save merges into its parent property by property (a sibling's change to another
/// property survives; one to the same property is a conflict the parent's merge policy resolves),
/// and carries what its delete rules did, so every level reads a consistent graph; a context's
/// link and unlink move the inverse to-one in its own reads.
extension NestedContextChecks {
    static let merging: [ConformanceCheck] = [
        ConformanceCheck(.nestedContexts, "siblingChildrenMergeIntoTheirParentPropertyByProperty") { c in
            let (store, data) = try await c.seeded()
            let parent = store.makeContext(name: "parent")
            let (first, second) = (parent.makeChildContext(name: "s1"), parent.makeChildContext(name: "s2"))
            var renamed = try expectNotNil(try await first.fetch(Trip.self, id: data.portoWine.id))
            var budgeted = try expectNotNil(try await second.fetch(Trip.self, id: data.portoWine.id))
            renamed.name = "Porto by s1"
            try await first.update(renamed)
            try await first.link(Trip.tags, from: data.portoWine.id, to: data.beach.id)
            try await first.save()
            budgeted.budget = 950
            try await second.update(budgeted)
            try await second.link(Trip.tags, from: data.portoWine.id, to: data.city.id)
            try await second.save()
            let merged = try expectNotNil(try await parent.fetch(Trip.self, id: data.portoWine.id))
            try expectEqual(merged.name, "Porto by s1", "the first sibling's change survives the second's save")
            try expectEqual(merged.budget, 950, "and the second's lands")
            try expectEqual(
                Set(try await parent.related(Trip.tags, of: data.portoWine.id).map(\.id)),
                [data.food.id, data.beach.id, data.city.id], "both siblings' links")
            try await parent.save()
            let stored = try expectNotNil(try await store.repository(Trip.self).fetch(data.portoWine.id))
            try expectEqual([stored.name, "\(stored.budget ?? 0)"], ["Porto by s1", "950.0"], "the parent's save")
        },
        ConformanceCheck(.nestedContexts, "siblingsChangingOnePropertyConflictUnderTheParentsPolicy") { c in
            let (store, data) = try await c.seeded()
            let expected: [(MergePolicy, String?)] = [
                (.error, nil), (.objectTrumpByProperty, "s2"), (.storeTrumpByProperty, "s1"), (.overwrite, "s2"),
                (.rollback, "s1"),
            ]
            for (policy, winner) in expected {
                let parent = store.makeContext(name: "parent", mergePolicy: policy)
                let (first, second) = (parent.makeChildContext(name: "s1"), parent.makeChildContext(name: "s2"))
                for (child, name) in [(first, "s1"), (second, "s2")] {
                    var ana = try expectNotNil(try await child.fetch(Person.self, id: data.ana.id))
                    ana.name = "Ana by \(name)"
                    try await child.update(ana)
                }
                try await first.save()
                guard let winner else {
                    let error = try await expectError(.mergeConflict, entity: "Person") { _ = try await second.save() }
                    try expect(
                        error.message.contains("s2") && error.message.contains("parent"),
                        "the refusal names both contexts: \(error.message)")
                    try expect(await second.hasChanges, "the refused child keeps its changes")
                    let kept = try await parent.fetch(Person.self, id: data.ana.id)?.name
                    try expectEqual(kept, "Ana by s1", "the parent as the first sibling left it")
                    continue
                }
                try await second.save()
                let name = try await parent.fetch(Person.self, id: data.ana.id)?.name
                try expectEqual(name, "Ana by \(winner)", "under \(policy.name)")
            }
        },
        ConformanceCheck(.nestedContexts, "aChildsCascadeAndNullifyAreVisibleInEveryAncestorBeforeItSaves") { c in
            let (store, data) = try await c.seeded()
            let top = store.makeContext(name: "top")
            let mid = top.makeChildContext(name: "mid")
            let leaf = mid.makeChildContext(name: "leaf")
            try expectEqual(try await mid.fetch(Stop.self, id: data.ribeira.id)?.name, "Ribeira", "read before")
            try await leaf.delete(Trip.self, id: data.portoWine.id)
            try await leaf.delete(Person.self, id: data.clara.id)
            try await leaf.save()
            for (level, context) in [("mid", mid), ("top", top)] {
                if level == "top" { try await mid.save() }
                try expectEqual(
                    try await context.fetch(Stop.self, id: data.ribeira.id), nil, "\(level): the cascaded stop is gone")
                let stops = try await context.fetch(Query<Stop>.where(\.trip == data.portoWine.id))
                try expectEqual(stops.count, 0, "\(level): no stop names the deleted trip")
                let winter = try await context.fetch(Trip.self, id: data.lisbonWinter.id)
                try expectEqual(winter?.traveller, nil, "\(level): the deleted traveller is nullified")
            }
            try await top.save()
            try expectEqual(try await store.repository(Stop.self).fetch(data.ribeira.id), nil, "the store after top")
            try expectEqual(try await store.repository(Trip.self).fetch(data.lisbonWinter.id)?.traveller, nil)
        },
        ConformanceCheck(.nestedContexts, "aContextsLinkAndUnlinkMoveTheInverseToOneInItsReads") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            try await context.unlink(Person.trips, from: data.ana.id, to: data.portoWine.id)
            try expectEqual(
                try await context.fetch(Trip.self, id: data.portoWine.id)?.traveller, nil,
                "unlinked from the to-many side: the to-one reads nil")
            try await context.link(Person.trips, from: data.bruno.id, to: data.lisbonSpring.id)
            try expectEqual(
                try await context.fetch(Trip.self, id: data.lisbonSpring.id)?.traveller, data.bruno.id,
                "linked: the to-one names the new owner")
            let child = context.makeChildContext()
            try expectEqual(try await child.fetch(Trip.self, id: data.lisbonSpring.id)?.traveller, data.bruno.id)
            try await context.save()
            let trips = store.repository(Trip.self)
            try expectEqual(try await trips.fetch(data.portoWine.id)?.traveller, nil, "the save unlinks")
            try expectEqual(try await trips.fetch(data.lisbonSpring.id)?.traveller, data.bruno.id, "and links")
        },
    ]
}
