import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// The app's save hooks: before validation they change what is saved, on every write path; after
/// validation they refuse a save and nothing is written; they see every record a save touches —
/// cascades and batch deletes included — exactly once; after commit they see each committed
/// save once; a sync server's apply and a client's pull run them too.
enum HookChecks {
    /// What hooks saw: each call's kind, entity and ID, and each committed save's change count.
    final class Journal: Sendable {
        let calls = Mutex<[(SaveChange.Kind, String, RecordID)]>([])
        let committed = Mutex<[Int]>([])

        var seen: [(SaveChange.Kind, String, RecordID)] { calls.withLock { $0 } }

        func reset() { calls.withLock { $0 = [] } }

        func count(_ kind: SaveChange.Kind, _ entity: String, _ id: RecordID) -> Int {
            seen.filter { $0.0 == kind && $0.1 == entity && $0.2 == id }.count
        }
    }

    /// Hooks that upper-case every Tag's label before validation, journal every change after it,
    /// and refuse a trip whose budget is over 10,000.
    static func hooks(_ journal: Journal) -> SaveHooks {
        var hooks = SaveHooks()
        hooks.beforeValidation("shout labels", Tag.self) { tag, _ in tag.label = tag.label.uppercased() }
        hooks.afterValidation("journal") { change in
            journal.calls.withLock { $0.append((change.kind, change.entity, change.id)) }
        }
        hooks.afterValidation("budget ceiling", Trip.self) { trip, _ in
            if let budget = trip?.budget, budget > 10_000 {
                throw StrataError(.validationFailed, "a budget over 10,000 needs approval")
            }
        }
        hooks.afterCommit("count") { save in journal.committed.withLock { $0.append(save.changes.count) } }
        return hooks
    }

    static let all: [ConformanceCheck] = [
        ConformanceCheck(.hooks, "beforeValidationHooksChangeWhatEveryWritePathSaves") { c in
            let journal = Journal()
            let store = try await c.store().withHooks(hooks(journal))
            let tags = store.repository(Tag.self)
            try await tags.insert(Tag(id: "a", label: "beach"))
            try await tags.update(Tag(id: "a", label: "dunes"))
            try await store.transaction { tx in
                try tx.insert(Tag(id: "b", label: "city"))
                try tx.upsert(Tag(id: "c", label: "food"))
            }
            let context = store.makeContext()
            try await context.insert(Tag(id: "d", label: "hike"))
            try await context.save()
            let stored = try await tags.fetch(Query<Tag>.all).map(\.label)
            try expectEqual(stored, ["DUNES", "CITY", "FOOD", "HIKE"], "every path saved the hook's change")
            try expectEqual(journal.count(.insert, "Tag", .string("a")), 1, "once per record per save")
            try expectEqual(journal.count(.update, "Tag", .string("a")), 1)
            try expectEqual(journal.committed.withLock { $0 }, [1, 1, 2, 1], "each committed save once")
            try await tags.update(Tag(id: "a", label: "DUNES"))
            try expectEqual(journal.committed.withLock { $0 }.count, 4, "a save that changes nothing commits nothing")
        },
        ConformanceCheck(.hooks, "anAfterValidationHookRefusesTheSaveAndNothingIsWritten") { c in
            let (base, data) = try await c.seeded()
            let journal = Journal()
            let store = base.withHooks(hooks(journal))
            var trip = data.portoWine
            trip.budget = 20_000
            let changed = trip
            let error = try await expectError(.refusedByHook, entity: "Trip") {
                try await store.transaction { tx in
                    try tx.insert(Tag(id: "x", label: "new"))
                    try tx.update(changed)
                }
            }
            try expect(error.message.contains("budget ceiling"), "the error names the hook: \(error)")
            try expectEqual(error.recordID, data.portoWine.id.recordID, "and the record")
            try expectEqual(try await store.repository(Tag.self).fetch("x"), nil, "nothing of the save was written")
            try expectEqual(try await store.repository(Trip.self).fetch(data.portoWine.id)?.budget, 800)
            let context = store.makeContext()
            try await context.update(changed)
            _ = try await expectError(.refusedByHook, entity: "Trip") { try await context.save() }
            try expectEqual(journal.committed.withLock { $0 }, [], "no refused save reached after-commit")
        },
        ConformanceCheck(.hooks, "hooksSeeCascadesAndBatchDeletesOncePerRecord") { c in
            let (base, data) = try await c.seeded()
            let journal = Journal()
            let store = base.withHooks(hooks(journal))
            try await store.repository(Person.self).delete(data.ana.id)
            for trip in [data.lisbonSpring, data.portoWine] {
                try expectEqual(journal.count(.delete, "Trip", trip.id.recordID), 1, "the cascade reached \(trip.name)")
            }
            for stop in [data.alfama, data.belem, data.sintra, data.ribeira] {
                try expectEqual(journal.count(.delete, "Stop", stop.id.recordID), 1, "and \(stop.name)")
            }
            try expectEqual(journal.count(.delete, "Person", data.ana.id.recordID), 1)
            journal.reset()
            let deleted = try await store.repository(Tag.self).delete(where: \Tag.label != "")
            try expectEqual(journal.seen.filter { $0.0 == .delete && $0.1 == "Tag" }.count, deleted, "a batch delete")
            try expect(deleted >= 3, "the seed's tags were deleted (\(deleted))")
        },
        ConformanceCheck(.hooks, "aSyncServersApplyAndAClientsPullRunTheirStoresHooks") { c in
            let serverJournal = Journal()
            let clientJournal = Journal()
            let server = SyncServer(store: try await c.store().withHooks(hooks(serverJournal)))
            let transport = InProcessTransport(server: server)
            let a = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engineA = try SyncEngine(store: a, remote: transport)
            var observing = SaveHooks()
            observing.afterValidation("journal") { change in
                clientJournal.calls.withLock { $0.append((change.kind, change.entity, change.id)) }
            }
            let b = try await c.store().withSync(SyncConfiguration(clientID: "b")).withHooks(observing)
            let engineB = try SyncEngine(store: b, remote: transport)
            try await a.repository(Tag.self).insert(Tag(id: "t", label: "beach"))
            try await engineA.syncNow()
            try expectEqual(serverJournal.count(.insert, "Tag", .string("t")), 1, "the server's apply ran its hooks")
            try expectEqual(
                try await server.store.repository(Tag.self).fetch("t")?.label, "BEACH", "and saved their change")
            try await engineB.syncNow()
            try expectEqual(clientJournal.count(.insert, "Tag", .string("t")), 1, "the pull ran the client's hooks")
            try expectEqual(try await b.repository(Tag.self).fetch("t")?.label, "BEACH")
        },
    ]
}
