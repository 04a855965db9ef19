import Foundation
import Strata

/// Undo and redo on a context: each change call one group, explicit groups, both sides of every
/// relationship, a delete with its cascade, undo after a save, levels and the redo stack's rules.
enum UndoChecks {
    static let all: [ConformanceCheck] = [
        ConformanceCheck(.undo, "undoAndRedoPutBackEveryKindOfStagedChange") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            await context.setUndoEnabled(true)
            let trip = data.lisbonSpring.id
            let trips = context.repository(Trip.self)
            let stops = context.repository(Stop.self)
            let order = try await trips.related(Trip.stops, of: trip).map(\.id)
            try expect(await !context.canUndo, "nothing recorded by reads")

            let added = Stop(name: "Cascais", city: "Cascais", nights: 1, trip: trip)
            try await stops.insert(added)
            try expectEqual(try await trips.related(Trip.stops, of: trip).map(\.id), order + [added.id])
            try expect(try await context.undo(), "an insert undone")
            try expectEqual(try await stops.fetch(added.id), nil, "the insert is gone")
            try expectEqual(try await trips.related(Trip.stops, of: trip).map(\.id), order, "and from its owner's list")
            try expect(try await context.redo(), "the insert redone")
            try expectEqual(try await trips.related(Trip.stops, of: trip).map(\.id), order + [added.id])

            var renamed = data.ana
            renamed.name = "Ana Maria"
            try await context.repository(Person.self).update(renamed)
            try await trips.setRelated(Trip.stops, of: trip, to: Array((order + [added.id]).reversed()))
            try await trips.link(Trip.tags, from: trip, to: data.food.id)
            try await context.undo()
            try expectEqual(
                Set(try await trips.related(Trip.tags, of: trip).map(\.id)), [data.beach.id, data.city.id], "a link")
            try expectEqual(
                try await context.repository(Tag.self).related(Tag.trips, of: data.food.id).map(\.id),
                [data.portoWine.id], "the other side of the link")
            try await context.undo()
            try expectEqual(try await trips.related(Trip.stops, of: trip).map(\.id), order + [added.id], "an order")
            try await context.undo()
            try expectEqual(try await context.repository(Person.self).fetch(data.ana.id)?.name, "Ana", "an update")
            try await context.undo()
            try expect(await !context.hasChanges, "every change undone: nothing to save")
            let (canUndo, canRedo) = (await context.canUndo, await context.canRedo)
            try expect(!canUndo && canRedo, "all on the redo stack")

            var moved = try expectNotNil(try await stops.fetch(data.ribeira.id))
            moved.trip = trip
            try expect(await context.canRedo, "before a new change")
            try await stops.update(moved)
            try expect(await !context.canRedo, "a new change clears the redo stack")
            try expect(try await trips.related(Trip.stops, of: trip).map(\.id).contains(moved.id), "re-pointed")
            try await context.undo()
            try expect(try await !trips.related(Trip.stops, of: trip).map(\.id).contains(moved.id), "the new owner")
            try expectEqual(
                try await trips.related(Trip.stops, of: data.portoWine.id).map(\.id), [moved.id], "the old owner")
            try await context.save()
            try expectEqual(
                try await store.repository(Trip.self).related(Trip.stops, of: trip).map(\.id), order, "nothing saved")
        },
        ConformanceCheck(.undo, "aGroupIsUndoneWholeAndAnUndoneDeleteTakesItsCascadeAlong") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            await context.setUndoEnabled(true)
            let planned = Trip(name: "Madeira", start: TravelDomain.day(200), traveller: data.bruno.id)
            try await context.undoGroup(named: "Plan Madeira") { context in
                try await context.insert(planned)
                try await context.insert(Stop(name: "Funchal", city: "Funchal", nights: 3, trip: planned.id))
                try await context.link(Trip.tags, from: planned.id, to: data.beach.id)
            }
            try expectEqual(await context.undoActionName, "Plan Madeira")
            try await context.delete(Person.self, id: data.ana.id)
            let trips = context.repository(Trip.self)
            let anaKey = RecordKey(entity: "Person", id: .uuid(data.ana.id))
            try expectEqual(await context.pendingChanges.deleted, [anaKey], "a staged delete")
            try await context.undo()
            try expectEqual(await context.pendingChanges.deleted, [], "undone before its rules apply")
            try expectEqual(try await trips.count(Query<Trip>.where(\.traveller == data.ana.id)), 2, "her trips stay")
            try expectEqual(try await context.count(Query<Stop>.where(\.name == "Funchal")), 1, "the group stays")
            try await context.undo()
            try expectEqual(try await trips.fetch(planned.id), nil, "one undo takes the whole group")
            try expectEqual(try await context.count(Query<Stop>.where(\.name == "Funchal")), 0)
            try expectEqual(
                try await context.repository(Tag.self).related(Tag.trips, of: data.beach.id).map(\.id),
                [data.lisbonSpring.id], "and its link")
            try await context.redo()
            try expectEqual(await context.redoActionName, nil)
            try await context.save()
            try expectEqual(
                try await store.repository(Trip.self).related(Trip.tags, of: planned.id).map(\.id), [data.beach.id],
                "the redone group saved")
            try expectEqual(try await store.repository(Person.self).count(), 4, "Ana stayed")
            try expectEqual(
                try await store.repository(Stop.self).count(Query<Stop>.where(\.trip == data.lisbonSpring.id)), 3,
                "and what her cascade would have deleted")
        },
        ConformanceCheck(.undo, "undoAfterASaveStagesTheReverseAndTheStacksFollowTheirRules") { c in
            let (store, data) = try await c.seeded()
            let context = store.makeContext()
            await context.setUndoEnabled(true)
            await context.setUndoLevels(2)
            let people = context.repository(Person.self)
            for name in ["A", "B", "C"] {
                var person = try expectNotNil(try await people.fetch(data.bruno.id))
                person.name = name
                try await people.update(person)
            }
            try await context.save()
            try expect(await context.canUndo, "a save keeps the undo stack")
            try await context.undo()
            try expect(await context.hasChanges, "undoing a saved change stages its reverse")
            try await context.save()
            try expectEqual(try await store.repository(Person.self).fetch(data.bruno.id)?.name, "B", "saved")
            try await context.undo()
            try expect(try await !context.undo(), "two levels kept, the oldest dropped")
            try expectEqual(try await people.fetch(data.bruno.id)?.name, "A")
            try await context.redo()
            try expectEqual(try await people.fetch(data.bruno.id)?.name, "B", "redo")
            await context.rollback()
            let (canUndo, canRedo) = (await context.canUndo, await context.canRedo)
            try expect(!canUndo && !canRedo, "rollback empties both stacks")
            try expectEqual(try await people.fetch(data.bruno.id)?.name, "B", "the stored state")
            let quiet = store.makeContext()
            try await quiet.repository(Person.self).delete(data.clara.id)
            try expect(await !quiet.canUndo, "recording is off by default")
        },
    ]
}
