import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// Large queues drain in batches and the clients settle with the server.
extension OfflineFirstChecks {
    static let settling: [ConformanceCheck] = [
        ConformanceCheck(.offlineFirst, "tenThousandQueuedWritesDrainInBatches") { c in
            let world = try await SyncWorld.make(c)
            let counting = FaultInjectingRemote(world.transport)
            let (store, engine) = try await world.client("bulk", remote: counting, options: .init(batchSize: 500))
            for batch in 0..<20 {
                try await store.transaction { tx in
                    for index in 0..<500 { try tx.insert(Photo(caption: "photo \(batch * 500 + index)")) }
                }
            }
            try expectEqual(try await engine.refreshStatus().pendingCount, 10_000)
            let report = try await engine.syncNow()
            try expectEqual(report.pushed, 10_000)
            let sizes = await counting.batchSizes
            try expectEqual(sizes.count, 20)
            try expect(sizes.allSatisfy { $0 <= 500 }, "batches are bounded")
            try expectEqual(try await world.server.store.repository(Photo.self).count(), 10_000)
            try expectEqual(try await engine.refreshStatus().pendingCount, 0)
            try expectEqual(try await engine.syncNow().pushed, 0, "pulled changes are not echoed back")
        },
        ConformanceCheck(.offlineFirst, "bothSidesEqualAndOutboxEmptyWhenSyncSettles") { c in
            let (world, a, engineA, b, engineB, data) = try await SyncWorld.twoSyncedClients(c)
            // Both edit different things: memberships, order, to-ones, deletes, inserts.
            try await a.repository(Trip.self).link(Trip.tags, from: data.portoWine.id, to: "beach")
            try await a.repository(Trip.self).setRelated(
                Trip.stops, of: data.lisbonSpring.id, to: [data.sintra.id, data.alfama.id, data.belem.id])
            try await b.repository(Trip.self).unlink(Trip.tags, from: data.lisbonSpring.id, to: "city")
            var trip = data.azoresHike
            trip.traveller = data.clara.id
            try await b.repository(Trip.self).update(trip)
            try await b.repository(Person.self).link(Person.interests, from: data.bruno.id, to: "food")
            try await a.repository(Stop.self).delete(data.ribeira.id)
            try await b.repository(Person.self).insert(Person(name: "Gil", email: "gil@example.com"))
            try await engineA.syncNow()
            try await engineB.syncNow()
            try await engineA.syncNow()
            try await expectSettled([a, b], server: world.server)
            let stops = try await b.repository(Trip.self).related(Trip.stops, of: data.lisbonSpring.id).map(\.name)
            try expectEqual(stops, ["Sintra", "Alfama", "Belém"], "order travels")
            try expectEqual(
                Set(try await a.repository(Trip.self).related(Trip.tags, of: data.lisbonSpring.id).map(\.id)), ["beach"]
            )
        },
        ConformanceCheck(.offlineFirst, "offlineRetriesWithBackoffAndPublishesStatus") { c in
            let world = try await SyncWorld.make(c)
            let flaky = FaultInjectingRemote(world.transport, faults: [.offline(attempts: 3)])
            // A status stream keeps the newest 16. Once settled, the loop waits an hour before its next
            // sync, so the outage's statuses (about ten) are never pushed out of the stream however long
            // a busy test machine takes to read them.
            let retry = RetryPolicy(
                initialDelay: .milliseconds(5), maximumDelay: .milliseconds(20), jitter: 0.5, interval: .seconds(3600))
            let (store, engine) = try await world.client("watch", remote: flaky, options: .init(retry: retry))
            try await store.repository(Tag.self).insert(Tag(id: "late", label: "Late"))
            let updates = await engine.statusUpdates()
            await engine.start()
            var sawError = false
            var sawRetry = false
            var settled = false
            let deadline = ContinuousClock.now + .seconds(120)
            for await status in updates {
                if status.lastError != nil { sawError = true }
                if status.nextRetry != nil { sawRetry = true }
                if status.pendingCount == 0 && status.lastError == nil && status.failures == 0 && sawError {
                    settled = true
                    break
                }
                if ContinuousClock.now > deadline { break }
            }
            await engine.stop()
            try expect(settled, "the engine caught up after the outage")
            try expect(sawError && sawRetry, "the outage and the next retry were published")
            try expectEqual(await flaky.failuresInjected, 3)
            try expectEqual(try await world.server.store.repository(Tag.self).fetch("late")?.label, "Late")
        },
    ]
}
