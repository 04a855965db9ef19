import Foundation
import Strata

/// Nested contexts: a child reads through its parent's pending changes and saves into it, never
/// to the store; three deep; a dropped child leaves its parent untouched; a child's save is checked
/// as a save would be; the parent's save meets the store under its merge policy.
enum NestedContextChecks {
    static let all: [ConformanceCheck] = [
        ConformanceCheck(.nestedContexts, "aChildReadsThroughItsParentAndSavesIntoItNotTheStore") { c in
            let (store, data) = try await c.seeded()
            let parent = store.makeContext()
            var ana = data.ana
            ana.name = "Ana (parent)"
            try await parent.update(ana)
            try await parent.insert(Tag(id: "museums", label: "Museums"))
            let child = parent.makeChildContext(name: "editor")
            try expectEqual(try await child.fetch(Person.self, id: ana.id)?.name, "Ana (parent)", "the parent's update")
            try expectEqual(try await child.fetch(Tag.self, id: "museums")?.label, "Museums", "the parent's insert")

            ana.name = "Ana (child)"
            try await child.update(ana)
            try await child.delete(Person.self, id: data.clara.id)
            try await child.link(Trip.tags, from: data.portoWine.id, to: "museums")
            let stop = Stop(name: "Cais", city: "Porto", nights: 1, trip: data.portoWine.id)
            try await child.insert(stop)
            try expectEqual(try await parent.fetch(Person.self, id: ana.id)?.name, "Ana (parent)", "before the save")
            let tokenBefore = try await store.currentHistoryToken()
            try await child.save()
            try expect(await !child.hasChanges, "the child saved everything")
            try expectEqual(try await parent.fetch(Person.self, id: ana.id)?.name, "Ana (child)", "into the parent")
            try expectEqual(try await parent.fetch(Person.self, id: data.clara.id), nil, "the child's delete")
            try expectEqual(
                try await parent.related(Trip.stops, of: data.portoWine.id).map(\.id), [data.ribeira.id, stop.id],
                "the child's insert joins its owner in the parent")
            try expectEqual(try await store.currentHistoryToken(), tokenBefore, "nothing written to the store")
            try expectEqual(try await store.repository(Person.self).fetch(ana.id)?.name, "Ana", "the store as it was")

            try await parent.save()
            let people = store.repository(Person.self)
            try expectEqual(try await people.fetch(ana.id)?.name, "Ana (child)", "the parent's save writes it")
            try expectEqual(try await people.fetch(data.clara.id), nil)
            try expectEqual(
                Set(try await store.repository(Trip.self).related(Trip.tags, of: data.portoWine.id).map(\.id)),
                ["food", "museums"], "with the child's link")
            let history = try await store.history(after: tokenBefore)
            try expectEqual(history.count, 1, "in one transaction")
        },
        ConformanceCheck(.nestedContexts, "contextsNestThreeDeepAndADroppedChildChangesNothing") { c in
            let (store, data) = try await c.seeded()
            let root = store.makeContext()
            let middle = root.makeChildContext()
            let leaf = middle.makeChildContext()
            let trip = Trip(name: "Évora", start: TravelDomain.day(90), traveller: data.dario.id)
            try await leaf.insert(trip)
            try await leaf.insert(Stop(name: "Templo", city: "Évora", nights: 1, trip: trip.id))
            try await leaf.save()
            try expectEqual(try await middle.fetch(Trip.self, id: trip.id)?.name, "Évora", "one level up")
            try expectEqual(try await root.fetch(Trip.self, id: trip.id), nil, "not two")
            try expectEqual(try await leaf.count(Query<Stop>.where(\.trip == trip.id)), 1, "the leaf sees its save")
            try await middle.save()
            try expectEqual(try await root.count(Query<Stop>.where(\.trip == trip.id)), 1, "then the root")
            try expectEqual(try await store.repository(Trip.self).fetch(trip.id), nil, "still not the store")

            let dropped = root.makeChildContext()
            try await dropped.delete(Person.self, id: data.dario.id)
            try await dropped.insert(Tag(id: "dropped", label: "Dropped"))
            try expectEqual(try await dropped.fetch(Person.self, id: data.dario.id), nil)
            try expectEqual(try await root.fetch(Person.self, id: data.dario.id)?.name, "Dário", "a dropped child")
            try expectEqual(try await root.fetch(Tag.self, id: "dropped"), nil, "changes nothing above it")

            try await root.save()
            try expectEqual(
                try await store.repository(Stop.self).count(Query<Stop>.where(\.trip == trip.id)), 1,
                "three levels saved by the root")
        },
        ConformanceCheck(.nestedContexts, "aChildsSaveIsCheckedAsASaveWouldBeAndTheParentMeetsTheStore") { c in
            let (store, data) = try await c.seeded()
            let parent = store.makeContext()
            let child = parent.makeChildContext()
            try await child.delete(Agency.self, id: data.sol.id)
            try await expectError(.deleteDenied, entity: "Agency") { try await child.save() }
            try expect(await child.hasChanges, "a refused save keeps the child's changes")
            try expect(await !parent.hasChanges, "and moves nothing")
            await child.rollback()
            var nameless = data.bruno
            nameless.name = ""
            try await child.update(nameless)
            try await expectError(.validationFailed, entity: "Person", property: "name") { try await child.save() }
            await child.rollback()

            var renamed = data.bruno
            renamed.name = "Bruno (child)"
            try await child.update(renamed)
            try await child.save()
            var elsewhere = data.bruno
            elsewhere.name = "Bruno (store)"
            try await store.repository(Person.self).update(elsewhere)
            let error = try await expectError(.mergeConflict) { try await parent.save() }
            try expectEqual(error.conflicts.map(\.entity), ["Person"], "found against what the child read")
            await parent.setMergePolicy(.objectTrumpByProperty)
            try await parent.save()
            try expectEqual(try await store.repository(Person.self).fetch(data.bruno.id)?.name, "Bruno (child)")
        },
    ]
}
