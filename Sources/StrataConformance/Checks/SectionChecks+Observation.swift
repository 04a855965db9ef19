import Foundation
import Strata

/// Observed sections: section insertions and deletions, rows moving within and across sections,
/// modifications in place, each delivered diff replaying onto the value before it, under a seeded
/// random stream of saves too.
extension SectionChecks {
    static let observed: [ConformanceCheck] = [
        ConformanceCheck(.sections, "observedSectionsDeliverSectionAndRowChanges") { c in
            let (store, data) = try await c.seeded()
            let stops = store.repository(Stop.self)
            let query = Query<Stop>.all.sorted(by: \.name)
            let probe = SectionProbe(store.observe(query, sectionedBy: .attribute(\.city)))
            func next(_ count: Int, _ what: String) async throws -> SectionedQueryResults<Stop, String> {
                let fresh = try await stops.fetch(query, sectionedBy: .attribute(\.city))
                try await probe.waitUntilLatest(equals: fresh, what)
                try expectEqual(probe.values.count, count, "one value per save (\(what))")
                return probe.values[count - 1]
            }
            try await probe.waitUntilLatest(
                equals: try await stops.fetch(query, sectionedBy: .attribute(\.city)), "the first value")
            let first = probe.values[0]
            try expectEqual(first.sections.map(\.key), ["Lisbon", "Ponta Delgada", "Porto", "Sintra"])
            try expectEqual(first.diff.insertedSections, IndexSet(0..<4), "the first value inserts every section")

            var ribeira = data.ribeira
            ribeira.city = "Lisbon"
            try await stops.update(ribeira)
            let moved = try await next(2, "Ribeira moves to Lisbon")
            try expectEqual(moved.diff.removedSections, IndexSet(integer: 2), "Porto's only stop left it")
            try expectEqual(moved.diff.insertedSections, IndexSet(), "no new section")
            let from = SectionedResultsDiff.Position(section: 2, row: 0)
            let to = SectionedResultsDiff.Position(section: 0, row: 2)
            try expectEqual(moved.diff.movedRows, [SectionedResultsDiff.Move(from: from, to: to)], "across sections")
            try expectEqual(moved.diff.insertedRows, [to], "inserted where it lands in a kept section")
            try expectEqual(moved.diff.removedRows, [], "its old section went with it")
            try expectEqual(moved.diff.modifiedRows, [to], "the record changed")

            try await stops.insert(Stop(name: "Cais", city: "Coimbra", nights: 1, trip: data.portoWine.id))
            let inserted = try await next(3, "a stop in a new city")
            try expectEqual(inserted.diff.insertedSections, IndexSet(integer: 0), "Coimbra sorts first")
            try expectEqual(inserted.diff.movedRows, [], "no row moved")
            try expectEqual(inserted.diff.insertedRows, [], "its row came with its section")

            try await stops.delete(data.sintra.id)
            let deleted = try await next(4, "Sintra's only stop deleted")
            try expectEqual(deleted.diff.removedSections, IndexSet(integer: 3))

            var alfama = data.alfama
            alfama.nights = 9
            try await stops.update(alfama)
            let modified = try await next(5, "Alfama edited in place")
            try expectEqual(modified.diff.modifiedRows, [SectionedResultsDiff.Position(section: 1, row: 0)])
            try expect(modified.diff.movedRows.isEmpty && modified.diff.insertedRows.isEmpty, "modified only")
            try probe.expectReplays("section and row changes")
        },
        ConformanceCheck(.sections, "observedSectionsReplayASeededRandomStreamOfSaves") { c in
            let (store, data) = try await c.seeded()
            let seed: UInt64 = 0x5EC7_1045
            print("observedSectionsReplayASeededRandomStreamOfSaves: seed \(seed)")
            var random = SeededRandom(seed: seed)
            let stops = store.repository(Stop.self)
            let query = Query<Stop>.where(\.nights >= 1).sorted(by: \.name).sorted(by: \.nights, .descending)
            let key = SectionKey<Stop, String>.firstLetter(\.city)
            let probe = SectionProbe(store.observe(query, sectionedBy: key))
            let trips = data.trips.map(\.id)
            var held = data.stops
            func city() -> String { ["Aveiro", "Braga", "Beja", "Coimbra", "Évora", "Faro"][Int(random.next() % 6)] }
            for step in 0..<80 {
                let pick = random.next() % 6
                if pick == 0 || held.count < 4 {
                    let stop = Stop(
                        name: "S\(random.next() % 9)", city: city(), nights: Int(random.next() % 4),
                        trip: trips[Int(random.next() % UInt64(trips.count))])
                    try await stops.insert(stop)
                    held.append(stop)
                } else if pick == 1 {
                    try await stops.delete(held.remove(at: Int(random.next() % UInt64(held.count))).id)
                } else if pick == 2 {
                    let picked = Set((0..<3).map { _ in Int(random.next() % UInt64(held.count)) })
                    for index in picked { held[index].city = city() }
                    let changed = picked.map { held[$0] }
                    try await store.transaction { tx in for stop in changed { try tx.update(stop) } }
                } else {
                    let index = Int(random.next() % UInt64(held.count))
                    switch random.next() % 3 {
                    case 0: held[index].nights = Int(random.next() % 4)
                    case 1: held[index].city = city()
                    default: held[index].name = "R\(random.next() % 9)"
                    }
                    try await stops.update(held[index])
                }
                let fresh = try await stops.fetch(query, sectionedBy: key)
                try await probe.waitUntilLatest(equals: fresh, "step \(step) equals a fresh fetch (seed \(seed))")
            }
            try probe.expectReplays("seed \(seed)")
            try expect(probe.values.count > 40, "the saves were delivered (\(probe.values.count) values)")
        },
        ConformanceCheck(.sections, "sectionsKeyedThroughAToOneFollowTheDestination") { c in
            let (store, data) = try await c.seeded()
            let trips = store.repository(Trip.self)
            let query = Query<Trip>.all.sorted(by: \.start)
            let key = SectionKey<Trip, String>.related(\.traveller, \Person.name)
            let fetched = try await trips.fetch(query, sectionedBy: key)
            try expectEqual(fetched.sections.map(\.key), [nil, "Ana", "Bruno", "Clara"], "no traveller first")
            try expectEqual(fetched.sections[1].models.map(\.id), [data.lisbonSpring.id, data.portoWine.id])
            let byTrip = try await store.repository(Stop.self).fetch(
                Query<Stop>.all.sorted(by: \.name), sectionedBy: .related(\.trip, \Trip.name))
            try expectEqual(byTrip.sections.map(\.key), ["Açores Hike", "Lisbon Spring", "Porto Wine"])
            try expectEqual(byTrip.sections[1].count, 3, "a required to-one too")

            let probe = SectionProbe(store.observe(query, sectionedBy: key))
            try await probe.waitUntilLatest(equals: fetched, "the first value")
            var bruno = data.bruno
            bruno.name = "Zé"
            try await store.repository(Person.self).update(bruno)
            let renamed = try await trips.fetch(query, sectionedBy: key)
            try expectEqual(renamed.sections.map(\.key), [nil, "Ana", "Clara", "Zé"], "the trip follows its traveller")
            try await probe.waitUntilLatest(equals: renamed, "a rename of the destination moves the row")
            let moved = try expectNotNil(probe.values.last).diff
            try expectEqual(moved.removedSections, IndexSet(integer: 2))
            try expectEqual(moved.insertedSections, IndexSet(integer: 3))
            try expectEqual(
                moved.movedRows,
                [.init(from: .init(section: 2, row: 0), to: .init(section: 3, row: 0))], "moved, not modified")
            try expectEqual(moved.modifiedRows, [], "the trip itself did not change")
            try probe.expectReplays("a key through a to-one")

            let context = store.makeContext()
            let contextProbe = SectionProbe(context.observe(query, sectionedBy: key))
            try await contextProbe.waitUntilLatest(equals: renamed, "a context's first value")
            var clara = data.clara
            clara.name = "Ada"
            try await context.update(clara)
            let pending = try await context.repository(Trip.self).fetch(query, sectionedBy: key)
            try expectEqual(pending.sections.map(\.key), [nil, "Ada", "Ana", "Zé"], "a pending rename shows")
            try await contextProbe.waitUntilLatest(equals: pending, "the context's sections follow its pending change")
            try contextProbe.expectReplays("through a context")
        },
    ]
}
