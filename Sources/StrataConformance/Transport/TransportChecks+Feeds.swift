import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Long polls and resets over the transport.
extension TransportChecks {
    static let feeds: [ConformanceCheck] = [
        ConformanceCheck(.transport, "aLongPollWakesOnACommitInScopeAndEndsAtShutdown") { c in
            // Polls that would wait an hour: an answer with a change proves a wake-up, not a deadline.
            let users = try await TwoUsers.make(
                c, limits: SyncLimits(maximumWait: .seconds(3600), rate: nil), bOptions: .init(pullWait: .seconds(3600))
            )
            let poll = Task { try await users.engineB.pull() }
            try await Task.sleep(for: .milliseconds(150))
            // Alice's own change wakes the server's wait but is not Bob's: he keeps waiting.
            var renamed = users.ana
            renamed.name = "Ana Maria"
            try await users.a.repository(Person.self).update(renamed)
            try await users.engineA.push()
            try await Task.sleep(for: .milliseconds(150))
            // A shared tag is his.
            try await users.a.repository(Tag.self).insert(Tag(id: "news", label: "News"))
            try await users.engineA.push()
            let pulled = try await poll.value
            let lastReceived = await users.remoteB.received.suffix(4)
            try expectEqual(pulled, 1, "the poll was woken with the one change in Bob's scope: \(lastReceived)")
            try expectNotNil(try await users.b.repository(Tag.self).fetch("news"))
            try expect(!(await users.receivedByB()).contains(.uuid(users.ana.id)), "Alice's rename never reached Bob")
            // A server going away ends a waiting poll at once, cleanly (a guard, not a measurement:
            // the poll would otherwise wait an hour).
            let second = Task { () -> Bool in
                do {
                    _ = try await users.engineB.pull()
                    return true
                } catch is SyncTransportError {
                    return true
                } catch {
                    return false
                }
            }
            try await Task.sleep(for: .milliseconds(150))
            await users.world.host.shutdown()
            let ended = await withTaskGroup(of: Bool?.self) { group -> Bool? in
                group.addTask { await second.value }
                group.addTask {
                    try? await Task.sleep(for: .seconds(120))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            try expectEqual(ended, true, "the poll ended with an answer or a transport error when the server shut down")
        },
        ConformanceCheck(.transport, "aClientBehindPurgedHistoryResetsFromASnapshotEvenAfterACrashMidway") { c in
            let world = try await TransportWorld.make(c)
            let (a, engineA) = try await world.client("a", tokens: FixedToken("token-a"))
            let data = try await TravelData.seed(a)
            try await engineA.syncNow()
            let b = try await c.store().withSync(SyncConfiguration(clientID: "b"))
            try await SyncEngine(store: b, remote: world.host.remote(tokens: FixedToken("token-b"))).syncNow()
            try expectEqual(try await b.repository(Stop.self).count(), 5)
            // While Bob is away: Ana (and by cascade her trips and stops) goes, new records come,
            // and the server purges all its history — the tombstones Bob needed are gone.
            try await a.repository(Person.self).delete(data.ana.id)
            try await a.repository(Tag.self).insert(Tag(id: "late", label: "Late"))
            for index in 0..<7 { try await a.repository(Person.self).insert(Person(name: "New \(index)")) }
            try await engineA.syncNow()
            let head = try expectNotNil(try await world.server.store.currentHistoryToken())
            try expect(try await world.server.store.purgeHistory(before: HistoryToken(head.value + 1)) > 0)
            // Bob's client stops after two pages of the snapshot.
            let dying = ScriptedRemote(world.host.remote(tokens: FixedToken("token-b")))
            await dying.failSnapshots(after: 2)
            do {
                try await SyncEngine(store: b, remote: dying, options: .init(pullLimit: 3)).syncNow()
                try expect(false, "the client stopped in the middle of its reset")
            } catch let error as SyncTransportError {
                try expectEqual(error.kind, .offline)
            }
            try expectEqual(await dying.snapshots, 2)
            // Started again, it finishes the reset where it stopped, then pulls on.
            let restarted = try SyncEngine(
                store: b, remote: world.host.remote(tokens: FixedToken("token-b")), options: .init(pullLimit: 3))
            try await restarted.syncNow()
            try expectEqual(await restarted.status.resets, 1)
            try expect(
                try await b.repository(Person.self).fetch(data.ana.id) == nil,
                "a record the server no longer has is gone")
            try expectEqual(
                try await b.repository(Stop.self).count(), try await world.server.store.repository(Stop.self).count())
            try await expectSettled([b], server: world.server)
            // And it goes on pulling from the snapshot's cursor.
            try await a.repository(Tag.self).insert(Tag(id: "after", label: "After"))
            try await engineA.syncNow()
            try await restarted.syncNow()
            try expectEqual(await restarted.status.resets, 1, "no second reset")
            try await expectSettled([b], server: world.server)
        },
    ]
}
