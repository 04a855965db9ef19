import Foundation
import Strata

/// Undo of a saved delete brings back what its delete rules removed at that save — the cascade's
/// records, the references its nullify cleared, the link lists — as Core Data's undo does, not the
/// deleted record alone; redo removes it all again.
extension UndoChecks {
    static let savedCascades: [ConformanceCheck] = [
        ConformanceCheck(.undo, "undoingASavedDeleteBringsBackEverythingItsDeleteRulesRemoved") { c in
            let (store, data, before, context) = try await undoing(c)
            try await context.repository(Person.self).delete(data.ana.id)
            try await context.save()
            let deleted = try await graph(store)
            try expect(deleted.records.count + 2 < before.records.count, "the cascade took more than Ana and one more")
            try expect(try await context.undo(), "the saved delete undone")
            let trip = try await context.repository(Trip.self).fetch(data.lisbonSpring.id)
            try expectEqual(trip?.traveller, data.ana.id, "the context reads her trips again before the save")
            try await context.save()
            let restored = try await graph(store)
            try expect(restored == before, "the whole graph is back: \(restored.difference(from: before))")
            try expect(try await context.redo(), "and redone")
            try await context.save()
            let again = try await graph(store)
            try expect(again == deleted, "redo removes it all again: \(again.difference(from: deleted))")
        },
        ConformanceCheck(.undo, "undoingOneOfTwoSavedDeletesBringsBackOnlyItsOwnGraph") { c in
            let (store, data, before, context) = try await undoing(c)
            try await context.repository(Trip.self).delete(data.lisbonSpring.id)
            try await context.repository(Trip.self).delete(data.portoWine.id)
            try await context.save()
            try expect(try await context.undo(), "Porto's delete undone")
            try await context.save()
            let now = try await graph(store)
            let trips = store.repository(Trip.self)
            try expectEqual(try await trips.fetch(data.lisbonSpring.id), nil, "Lisbon's delete stays")
            for stop in [data.alfama, data.belem, data.sintra] {
                try expectEqual(try await store.repository(Stop.self).fetch(stop.id), nil, "and its stops")
            }
            try expectEqual(
                try await store.repository(Stop.self).fetch(data.ribeira.id), data.ribeira, "Porto's is back")
            let porto = RecordKey(entity: "Trip", id: data.portoWine.id.recordID)
            try expectEqual(now.records[porto], before.records[porto], "Porto as it was")
            for (name, list) in before.related where name.hasPrefix("\(porto).") {
                try expectEqual(now.related[name], list, "Porto's \(name) as it was")
            }
            let tags = try await trips.related(Trip.tags, of: data.portoWine.id).map(\.id)
            try expect(!tags.isEmpty, "Porto has its tags again")
            for tag in tags {
                let listed = try await store.repository(Tag.self).related(Tag.trips, of: tag).map(\.id)
                try expect(listed.contains(data.portoWine.id), "and \(tag) lists it")
                try expect(!listed.contains(data.lisbonSpring.id), "but not Lisbon")
            }
        },
    ]

    /// A seeded store, its graph, and a context recording undo over it.
    static func undoing(_ c: ConformanceContext) async throws -> (Store, TravelData, StoreGraph, ModelContext) {
        let (store, data) = try await c.seeded()
        let context = store.makeContext()
        await context.setUndoEnabled(true)
        return (store, data, try await graph(store), context)
    }

    /// The store's records (values, not versions) and link lists.
    static func graph(_ store: Store) async throws -> StoreGraph {
        StoreGraph(try await StoreSnapshot.take(store))
    }
}

/// A store's records by their values (a record put back is a new version of it) and its link lists.
struct StoreGraph: Equatable, Sendable {
    var records: [RecordKey: [String: Value]]
    var related: [String: [RecordID]]

    init(_ snapshot: StoreSnapshot) {
        records = snapshot.records.mapValues(\.values)
        related = snapshot.related
    }

    func difference(from other: StoreGraph) -> String {
        let missing = other.records.keys.filter { records[$0] == nil }.map { "\($0)" }.sorted().prefix(4)
        let added = records.keys.filter { other.records[$0] == nil }.map { "\($0)" }.sorted().prefix(4)
        let changed = records.keys.filter { other.records[$0] != nil && other.records[$0] != records[$0] }
            .map { key in
                let names = Set(records[key]?.keys.map { $0 } ?? []).union(other.records[key]?.keys.map { $0 } ?? [])
                let differing = names.filter { records[key]?[$0] != other.records[key]?[$0] }.sorted()
                return "\(key): \(differing.joined(separator: ","))"
            }
            .sorted().prefix(4)
        let lists = related.keys.filter { related[$0] != other.related[$0] }.sorted().prefix(4)
        return "missing \(Array(missing)), added \(Array(added)), changed \(Array(changed)), lists \(Array(lists))"
    }
}
