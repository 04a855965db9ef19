import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Sharing over the transport: an owner shares a record and what its rule includes with another
/// identity; the participant reads it on every route, writes it as its role allows, and loses it
/// — locally, never on the server — when the share is revoked.
enum SharingChecks {
    static var all: [ConformanceCheck] { reads + writes + revocation + cascades }

    static let reads: [ConformanceCheck] = [
        ConformanceCheck(.sharing, "aShareBringsTheRecordAndWhatItIncludesToItsParticipantOnly") { c in
            let data = try await SharingWorld.make(c)
            let (bob, bobEngine, _) = try await data.client("b", token: "token-b")
            let (carol, carolEngine, carolRemote) = try await data.client("c", token: "token-c")
            try expectEqual(try await SharingWorld.names(bob).trips, ["Oslo"], "before the share")
            let (_, _, share) = try await data.alice(role: .read)
            try await bobEngine.syncNow()
            let names = try await SharingWorld.names(bob)
            try expectEqual(names.trips, ["Lisbon", "Oslo"], "Lisbon is shared, Porto is not")
            try expectEqual(names.stops, ["Belém", "Sintra"], "the stops come with their trip")
            try expectEqual(try await bob.repository(Person.self).fetch().map(\.name), ["Bo"], "Ana is not shared")
            try expectEqual(try await bob.repository(SyncShare.self).fetch(), [share], "the participant sees its share")
            try expectEqual(try await bobEngine.pendingMutations().count, 0, "nothing arrived as a local write")
            // What the owner adds to the shared record later reaches the participant by the feed.
            let cascais = Stop(name: "Cascais", city: "Cascais", trip: data.lisbon.id)
            try await data.world.server.store.repository(Stop.self).insert(cascais)
            try await bobEngine.syncNow()
            try expectEqual(try await SharingWorld.names(bob).stops, ["Belém", "Sintra", "Cascais"])
            // Carol has no share: nothing of Alice's, not even the share.
            try await carolEngine.syncNow()
            let hers = try await SharingWorld.names(carol)
            try expect(hers.trips.isEmpty && hers.stops.isEmpty, "Carol holds \(hers)")
            try expectEqual(try await carol.repository(SyncShare.self).count(), 0, "a share reaches two identities")
            try expect(!(await carolRemote.receivedWithValues).contains(.uuid(data.lisbon.id)))
            // A snapshot is widened the same way, for Bob only.
            let bobs = try await data.snapshot(as: TransportWorld.bob)
            for key in [
                SharingWorld.key(Trip.self, data.lisbon.id), SharingWorld.key(Stop.self, data.belem.id),
                SharingWorld.key(Stop.self, cascais.id),
            ] {
                try expect(bobs.contains(key), "Bob's snapshot holds \(key)")
            }
            try expect(!bobs.contains(SharingWorld.key(Trip.self, data.porto.id)), "Porto is not shared")
            let carols = try await data.snapshot(as: SharingWorld.carol)
            try expect(
                !carols.contains(SharingWorld.key(Trip.self, data.lisbon.id)), "Carol's snapshot holds no Lisbon")
        },
        ConformanceCheck(.sharing, "aLongPollWakesForANewShareAndAClientStartingLateGetsIt") { c in
            let data = try await SharingWorld.make(c, limits: SyncLimits(maximumWait: .seconds(3600), rate: nil))
            let (bob, bobEngine, _) = try await data.client(
                "b", token: "token-b", options: .init(pullWait: .seconds(3600)))
            // A poll that would wait an hour: an answer proves the share woke it.
            let poll = Task { try await bobEngine.pull() }
            try await Task.sleep(for: .milliseconds(150))
            _ = try await data.alice(role: .read)
            let pulled = try await poll.value
            try expectEqual(pulled, 4, "the share, the trip and its two stops")
            try expectEqual(try await SharingWorld.names(bob).trips, ["Lisbon", "Oslo"])
            // A client of Bob's starting now reads the share from the feed's start.
            let (late, _, _) = try await data.client("b2", token: "token-b")
            try expectEqual(try await SharingWorld.names(late).stops, ["Belém", "Sintra"])
            // A client with subscriptions gets its shares whatever they cover, and of the shared
            // records what they cover: here the trips, not the stops.
            let (subscribed, engine, _) = try await data.client("b3", token: "token-b")
            try await engine.subscribe(try SyncSubscription("trips", Trip.self))
            try await engine.syncNow()
            try expectEqual(try await subscribed.repository(SyncShare.self).count(), 1, "the share, never evicted")
            let names = try await SharingWorld.names(subscribed)
            try expectEqual(names.trips, ["Lisbon", "Oslo"])
            try expectEqual(names.stops, [], "no subscription covers stops")
        },
    ]

    static let writes: [ConformanceCheck] = [
        ConformanceCheck(.sharing, "aReadShareRefusesTheParticipantsWritesAndOnlyTheOwnerShares") { c in
            let data = try await SharingWorld.make(c)
            _ = try await data.alice(role: .read)
            let (bob, bobEngine, _) = try await data.client("b", token: "token-b")
            _ = try await data.editLisbon(in: bob)
            // Re-sharing, and raising his own role, are the owner's.
            try await bob.repository(SyncShare.self).insert(
                SyncShare(Trip.self, data.lisbon.id, owner: "bob", with: "carol"))
            var raised = try await bob.repository(SyncShare.self).fetch().first { $0.participant == "bob" }
            raised?.role = .readWrite
            if let raised { try await bob.repository(SyncShare.self).update(raised) }
            try await bobEngine.syncNow()
            // Each refused (a stop's insert and delete also change the trip's ordered stops).
            let rejections = await bobEngine.rejections
            try expectEqual(
                Set(rejections.map(\.mutation.key.entity)), [Trip.entityName, Stop.entityName, SyncShare.entityName],
                "\(rejections.map(\.reason))")
            try expect(rejections.allSatisfy { $0.code == StrataError.Code.permissionDenied.rawValue })
            try expect(rejections[0].reason.contains("read only"), rejections[0].reason)
            let rejected = Set(rejections.map(\.mutation.key.id))
            try expect(rejected.contains(.uuid(data.sintra.id)) && rejected.contains(.uuid(data.lisbon.id)))
            try expectEqual(rejections.filter { $0.mutation.key.entity == SyncShare.entityName }.count, 2)
            let server = try await SharingWorld.names(data.world.server.store)
            try expectEqual(server.trips, ["Lisbon", "Porto", "Oslo"], "nothing renamed")
            try expectEqual(server.stops, ["Belém", "Sintra"], "nothing added or deleted")
            try expectEqual(
                try await data.world.server.store.repository(SyncShare.self).fetch().map(\.role), [.read])
            let local = try await SharingWorld.names(bob)
            try expectEqual(local.trips, ["Lisbon", "Oslo"], "Bob's copy restored from the server")
            try expectEqual(local.stops, ["Belém", "Sintra"])
            // Carol, with no share, cannot write Lisbon either.
            let (carol, carolEngine, _) = try await data.client("c", token: "token-c")
            try await carol.repository(Trip.self).insert(
                Trip(id: data.lisbon.id, name: "Mine", start: TravelDomain.day(1)))
            try await carolEngine.syncNow()
            try expectEqual(await carolEngine.rejections.map(\.code), [StrataError.Code.permissionDenied.rawValue])
            try expectEqual(
                try await data.world.server.store.repository(Trip.self).fetch(data.lisbon.id)?.name, "Lisbon")
        },
        ConformanceCheck(.sharing, "aReadWriteShareLetsTheParticipantEditButNotDeleteOrTakeTheRecord") { c in
            let data = try await SharingWorld.make(c)
            let (alice, aliceEngine, share) = try await data.alice(role: .readWrite)
            let (bob, bobEngine, _) = try await data.client("b", token: "token-b")
            let renamed = try await data.editLisbon(in: bob)
            try await bobEngine.syncNow()
            try expectEqual(await bobEngine.rejections.map(\.reason), [], "a read-write participant edits")
            try await aliceEngine.syncNow()
            let aliceNames = try await SharingWorld.names(alice)
            try expectEqual(aliceNames.trips, ["Lisboa", "Porto"], "the owner sees the participant's edits")
            try expectEqual(aliceNames.stops, ["Belém", "Cascais"])
            // Taking the trip (its traveller says who owns it) or deleting it is the owner's.
            var taken = renamed
            taken.traveller = data.bo.id
            try await bob.repository(Trip.self).update(taken)
            try await bobEngine.syncNow()
            try await bob.repository(Trip.self).delete(data.lisbon.id)
            try await bobEngine.syncNow()
            let reasons = await bobEngine.rejections.map(\.reason)
            try expectEqual(reasons.count, 2, "\(reasons)")
            try expect(reasons[0].contains("traveller"), reasons[0])
            try expect(reasons[1].contains("owner"), reasons[1])
            let trip = try await data.world.server.store.repository(Trip.self).fetch(data.lisbon.id)
            try expectEqual(trip?.traveller, data.ana.id, "still Ana's")
            try expectNotNil(try await bob.repository(Trip.self).fetch(data.lisbon.id), "restored for Bob")
            // Lowered to read: Bob's next edit is refused.
            var lowered = share
            lowered.role = .read
            try await alice.repository(SyncShare.self).update(lowered)
            try await aliceEngine.syncNow()
            try await bobEngine.syncNow()
            var again = try await bob.repository(Trip.self).fetch(data.lisbon.id) ?? renamed
            again.name = "Lisbon again"
            try await bob.repository(Trip.self).update(again)
            try await bobEngine.syncNow()
            try expectEqual(await bobEngine.rejections.count, 3)
            try expectEqual(
                try await data.world.server.store.repository(Trip.self).fetch(data.lisbon.id)?.name, "Lisboa")
        },
    ]

    static let revocation: [ConformanceCheck] = [
        ConformanceCheck(.sharing, "revokingAShareEvictsWhatItReachedAtTheNextPullAndDeletesNothing") { c in
            let data = try await SharingWorld.make(c)
            let (alice, aliceEngine, share) = try await data.alice(role: .read)
            let (bob, bobEngine, _) = try await data.client("b", token: "token-b")
            try expectEqual(try await SharingWorld.names(bob).stops, ["Belém", "Sintra"])
            try await alice.repository(SyncShare.self).delete(share.id)
            try await aliceEngine.syncNow()
            let history = try await data.world.server.store.history().count
            try await bobEngine.syncNow()
            var names = try await SharingWorld.names(bob)
            try expectEqual(names.trips, ["Oslo"], "Lisbon evicted, his own trip kept")
            try expectEqual(names.stops, [], "the stops went with it")
            try expectEqual(try await bob.repository(SyncShare.self).count(), 0)
            try expectEqual(try await bobEngine.pendingMutations().count, 0, "evictions queue nothing")
            try expectEqual(try await data.world.server.store.history().count, history, "the server changed nothing")
            try expectEqual(try await SharingWorld.names(data.world.server.store).stops, ["Belém", "Sintra"])
            // Shared again, then left by the participant: his own delete of the share evicts too.
            let again = SyncShare(Trip.self, data.lisbon.id, owner: "alice", with: "bob")
            try await alice.repository(SyncShare.self).insert(again)
            try await aliceEngine.syncNow()
            try await bobEngine.syncNow()
            try expectEqual(try await SharingWorld.names(bob).trips, ["Lisbon", "Oslo"])
            try await bob.repository(SyncShare.self).delete(again.id)
            try await bobEngine.syncNow()
            try expectEqual(await bobEngine.rejections.map(\.reason), [], "a participant may leave")
            names = try await SharingWorld.names(bob)
            try expectEqual(names.trips, ["Oslo"])
            try expectEqual(names.stops, [])
            try await aliceEngine.syncNow()
            try expectEqual(try await alice.repository(SyncShare.self).count(), 0, "the owner sees it left")
            try expectEqual(try await SharingWorld.names(alice).trips, ["Lisbon", "Porto"])
        },
        // Found by the sync simulation with shares (seed 85601058): an owner revoked a share and
        // deleted the shared trip in one push; the participant kept the trip for good. Its
        // tombstone was judged by whether the participant could read it at its cursor, with the
        // shares as they are now (revoked); the revoke's eviction found no trip to evict.
        ConformanceCheck(.sharing, "aSharedRecordDeletedWithItsSharesRevokeLeavesTheParticipant") { c in
            let data = try await SharingWorld.make(c)
            let (alice, aliceEngine, share) = try await data.alice(role: .read)
            let (bob, bobEngine, _) = try await data.client("b", token: "token-b")
            try expectEqual(try await SharingWorld.names(bob).trips, ["Lisbon", "Oslo"])
            try await alice.transaction { tx in
                try tx.delete(SyncShare.entityName, id: share.id.recordID)
                try tx.delete("Trip", id: data.lisbon.id.recordID)
            }
            try await aliceEngine.syncNow()
            try await bobEngine.syncNow()
            let names = try await SharingWorld.names(bob)
            try expectEqual(names.trips, ["Oslo"], "the deleted trip left, his own stayed")
            try expectEqual(names.stops, [], "its stops with it")
            try expectEqual(try await bob.repository(SyncShare.self).count(), 0, "and the share")
            try expectEqual(try await bobEngine.pendingMutations().count, 0, "nothing of it is his to send")
            try expectEqual(try await data.world.server.store.repository(Trip.self).fetch(data.lisbon.id), nil)
        },
    ]
}
