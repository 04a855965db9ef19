import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Exactly-once effect of push: checks that fail if the server applied any mutation a second time —
/// the last of a batch included, and a put replayed after another client changed the record.
extension OfflineFirstChecks {
    static func mutation(
        _ client: String, _ sequence: UInt64, _ entity: String, _ id: RecordID, _ values: [String: Value] = [:],
        kind: SyncMutation.Kind = .put, insert: Bool = false
    ) -> SyncMutation {
        SyncMutation(
            id: MutationID(clientID: client, sequence: sequence), kind: kind, entity: entity, recordID: id,
            isInsert: insert, values: values, timestamp: HybridTimestamp(millis: Int64(sequence), node: client))
    }

    static let retries: [ConformanceCheck] = [
        ConformanceCheck(.offlineFirst, "aRetriedBatchIsAnsweredDuplicateUpToItsLastMutation") { c in
            let world = try await SyncWorld.make(c)
            let data = try await TravelData.seed(world.server.store)
            let batch = [
                mutation("c1", 1, "Tag", .string("new"), ["label": "New"], insert: true),
                mutation("c1", 2, "Tag", .string("new"), ["label": "Newer"]),
                mutation("c1", 3, "Person", data.ana.id.recordID, ["age": 35]),
                mutation("c1", 4, "Tag", data.food.id.recordID, kind: .delete),
                mutation("c1", 5, "Trip", data.portoWine.id.recordID, ["budget": 900.0]),
            ]
            let first = try await world.transport.push(PushRequest(clientID: "c1", mutations: batch))
            try expectEqual(first.results.map(\.outcome), Array(repeating: .applied, count: batch.count))
            let after = try await StoreSnapshot.take(world.server.store)
            // The acknowledgement was lost: the same batch comes again, whole.
            let retry = try await world.transport.push(PushRequest(clientID: "c1", mutations: batch))
            try expectEqual(
                retry.results.map(\.outcome), Array(repeating: .duplicate, count: batch.count),
                "every mutation, the last included")
            try expectEqual(
                try await StoreSnapshot.take(world.server.store), after,
                "nothing was applied again (records, versions, history)")
            // A batch overlapping the applied ones: only the new mutation applies.
            let overlapping = try await world.transport.push(
                PushRequest(
                    clientID: "c1",
                    mutations: [
                        batch[3], batch[4], mutation("c1", 6, "Trip", data.portoWine.id.recordID, ["budget": 950.0]),
                    ]))
            try expectEqual(overlapping.results.map(\.outcome), [.duplicate, .duplicate, .applied])
            try expectEqual(try await world.server.store.repository(Trip.self).fetch(data.portoWine.id)?.budget, 950)
            let history = try await world.server.store.history(after: after.historyToken)
            try expectEqual(history.count, 1, "one save for the one new mutation")
            try expectEqual(history.first?.changes.map(\.id), [data.portoWine.id.recordID])
        },
        ConformanceCheck(.offlineFirst, "aReplayedPutNeverOverwritesANewerValue") { c in
            let world = try await SyncWorld.make(c)
            let data = try await TravelData.seed(world.server.store)
            let put = mutation("c1", 1, "Person", data.ana.id.recordID, ["name": "One", "age": 1])
            try expectEqual(
                try await world.transport.push(PushRequest(clientID: "c1", mutations: [put])).results.map(\.outcome),
                [.applied])
            // Another client changes the record after it.
            try expectEqual(
                try await world.transport.push(
                    PushRequest(
                        clientID: "c2",
                        mutations: [
                            mutation("c2", 1, "Person", data.ana.id.recordID, ["name": "Two"])
                        ])
                ).results.map(\.outcome), [.applied])
            let before = try await StoreSnapshot.take(world.server.store)
            // The first client never heard back and sends its put again, alone and in a larger batch.
            let replay = try await world.transport.push(PushRequest(clientID: "c1", mutations: [put]))
            try expectEqual(replay.results.map(\.outcome), [.duplicate])
            let larger = try await world.transport.push(
                PushRequest(
                    clientID: "c1",
                    mutations: [
                        put, mutation("c1", 2, "Person", data.bruno.id.recordID, ["age": 29]),
                    ]))
            try expectEqual(larger.results.map(\.outcome), [.duplicate, .applied])
            let ana = try expectNotNil(try await world.server.store.repository(Person.self).fetch(data.ana.id))
            try expectEqual(ana.name, "Two", "the newer value stands")
            try expectEqual(ana.age, 1, "the replayed put's other property is not re-applied either")
            let versionBefore = before.records[RecordKey(entity: "Person", id: data.ana.id.recordID)]?.version
            try expectEqual(
                try await world.server.store.read { try $0.record("Person", id: data.ana.id.recordID)?.version },
                versionBefore)
        },
        ConformanceCheck(.offlineFirst, "aLostAcknowledgementThenAnotherClientsWriteConverges") { c in
            let world = try await SyncWorld.make(c)
            let faulty = FaultInjectingRemote(world.transport, faults: [.failAfterApplying])
            let (a, engineA) = try await world.client("a", remote: faulty)
            let (b, engineB) = try await world.client("b")
            let tag = Tag(id: "t", label: "A's")
            try await a.repository(Tag.self).insert(tag)
            _ = try? await engineA.syncNow()  // applied on the server, acknowledgement lost
            try await engineB.syncNow()
            try expectEqual(try await b.repository(Tag.self).fetch("t")?.label, "A's")
            try await b.repository(Tag.self).update(Tag(id: "t", label: "B's"))
            try await engineB.syncNow()
            let serverVersion = try await world.server.store.read { try $0.record("Tag", id: .string("t"))?.version }
            try await engineA.syncNow()  // the retry: duplicate, and then the pull brings B's value
            try expectEqual(
                try await world.server.store.repository(Tag.self).fetch("t")?.label, "B's",
                "the retry did not overwrite B's value")
            try expectEqual(
                try await world.server.store.read { try $0.record("Tag", id: .string("t"))?.version }, serverVersion)
            try expectEqual(try await a.repository(Tag.self).fetch("t")?.label, "B's", "A converges on B's value")
            try expectEqual(try await engineA.pendingMutations().count, 0)
        },
    ]
}
