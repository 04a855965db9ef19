import Foundation
import Strata

/// A persistent backend reopened after an abrupt stop (no clean close: journals and write-ahead
/// logs replayed) holds every acknowledged save — records, versions, memberships, history, the
/// outbox — and nothing of a save that failed.
extension FaultChecks {
    static let abruptStop: [ConformanceCheck] = [
        ConformanceCheck(.faults, "everyAcknowledgedSaveSurvivesAnAbruptStop", requires: [.abruptStop]) { c in
            let sync = SyncConfiguration(clientID: "abrupt")
            let store = try await c.store().withSync(sync)
            let data = try await TravelData.seed(store)
            // Every write path, then the state as acknowledged.
            try await store.repository(Tag.self).insert(Tag(id: "é-new", label: "New"))
            try await store.transaction { tx in
                try tx.delete(Person.self, id: data.bruno.id)
                try tx.setRelated(Person.interests, of: data.ana.id, to: [data.food.id, data.beach.id])
            }
            let context = store.makeContext(name: "abrupt")
            var trip = try expectNotNil(try await context.fetch(Trip.self, id: data.portoWine.id))
            trip.budget = 850.5
            try await context.update(trip)
            try await context.link(Trip.tags, from: data.portoWine.id, to: data.city.id)
            try await context.save()
            try await store.repository(Sample.self).insert(
                Sample(id: "s", number: -.infinity, when: Date(timeIntervalSinceReferenceDate: 1.0 / 3.0)))
            let acknowledged = try await observe(store)
            let reopened = try await c.reopenAfterAbruptStop(store).withSync(sync)
            let after = try await observe(reopened)
            try expectEqual(
                after.snapshot, acknowledged.snapshot, after.snapshot.difference(from: acknowledged.snapshot))
            try expectEqual(after.outbox, acknowledged.outbox, "the outbox is as whole as the data")
            try expectEqual(after.history, acknowledged.history)
            // The reopened store takes writes and keeps counting versions and history from there.
            try await reopened.repository(Tag.self).update(Tag(id: "é-new", label: "Newer"))
            try expectEqual(try await reopened.read { try $0.record("Tag", id: .string("é-new"))?.version }, 2)
        },
        ConformanceCheck(.faults, "aSaveThatFailedBeforeAnAbruptStopIsAbsentAfterIt", requires: [.abruptStop]) { c in
            let store = try await c.store()
            let data = try await TravelData.seed(store)
            let faulty = FaultInjectingBackend(wrapping: store.backend)
            let wrapped = Store(backend: faulty, location: store.location)
            let before = try await observe(store)
            faulty.inject(.failAtCommit)
            try await expectError(.storageFailure) {
                try await wrapped.transaction { tx in
                    try tx.delete(Person.self, id: data.ana.id)
                    try tx.insert(Tag(id: "ghost", label: "Ghost"))
                }
            }
            let reopened = try await c.reopenAfterAbruptStop(store)
            try expectEqual(try await observe(reopened), before)
        },
    ]
}
