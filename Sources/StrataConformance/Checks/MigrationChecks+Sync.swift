import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// A sync client across a migration: its outbox re-expressed or the plan refusing, and its
/// messages carrying the schema version.
extension MigrationChecks {
    static let syncs: [ConformanceCheck] = [
        ConformanceCheck(.migration, "waitingOutboxMutationsAreReexpressedInTheNewNames", requires: [.migrate]) { c in
            let (seeded, data) = try await c.seeded()
            let store = seeded.withSync(SyncConfiguration(clientID: "migrating"))
            try await store.transaction { tx in
                try tx.update("Stop", id: data.alfama.id.recordID, set: ["name": .string("Alfama Alta")])
            }
            let versions = try stopNameChain(["title"])
            let migrated = try await c.migrate(store, to: versions[1].schema, plan: MigrationPlan(versions: versions))
            let server = try await c.store(versions[1].schema)
            let engine = try SyncEngine(store: migrated, remote: InProcessTransport(server: SyncServer(store: server)))
            let pending = try await engine.pendingMutations()
            let mutation = try expectNotNil(
                pending.first { $0.recordID == data.alfama.id.recordID }, "the waiting mutation survives")
            try expectEqual(mutation.values["title"], .string("Alfama Alta"), "in the new name")
            try expect(mutation.values["name"] == nil, "and not the old one")
        },
        ConformanceCheck(.migration, "theRefusingOutboxPolicyRefusesWhileMutationsWait", requires: [.migrate]) { c in
            let (seeded, data) = try await c.seeded()
            let store = seeded.withSync(SyncConfiguration(clientID: "migrating"))
            try await store.transaction { tx in
                try tx.update("Stop", id: data.alfama.id.recordID, set: ["nights": .int(9)])
            }
            let versions = try stopNameChain(["title"])
            let error = try await expectError(.migrationRequired) {
                _ = try await c.migrate(
                    store, to: versions[1].schema, plan: MigrationPlan(versions: versions, outbox: .refuse))
            }
            try expect(error.message.contains("outbox"), "the error names the outbox: \(error)")
            let reopened = try await c.migrate(store, to: versions[0].schema, plan: nil)
            try expectEqual(
                try await records(reopened, "Stop")[data.alfama.id.recordID]?["nights"], .int(9),
                "the store is as it was")
        },
        ConformanceCheck(
            .migration, "syncMessagesCarryTheSchemaVersionAndAServerOfAnotherRefuses", requires: [.migrate]
        ) { c in
            let (seeded, data) = try await c.seeded()
            let versions = try stopNameChain(["title"])
            let client = try await c.migrate(seeded, to: versions[1].schema, plan: MigrationPlan(versions: versions))
                .withSync(SyncConfiguration(clientID: "newer"))
            try await client.transaction { tx in
                try tx.insert(Record(entity: "Tag", id: .string("surf"), values: ["label": .string("Surf")]))
            }
            let older = SyncServer(store: try await c.store(versions[0].schema))
            try await expectError(.incompatibleStore) {
                _ = try await older.push(PushRequest(clientID: "newer", mutations: [], schemaVersion: "2"))
            }
            try await expectError(.incompatibleStore) {
                _ = try await older.pull(PullRequest(clientID: "newer", cursor: nil, schemaVersion: "2"))
            }
            let engine = try SyncEngine(store: client, remote: InProcessTransport(server: older))
            let error = try await expectError(.incompatibleStore) { try await engine.syncNow() }
            try expect(error.message.contains("2") && error.message.contains("1"), "both versions are named: \(error)")
            try expectEqual(try await engine.pendingMutations().count, 1, "the outbox keeps the mutation")
            let same = SyncServer(store: try await c.store(versions[1].schema))
            try await SyncEngine(store: client, remote: InProcessTransport(server: same)).syncNow()
            try expectEqual(
                try await records(same.store, "Tag")[.string("surf")]?["label"], .string("Surf"),
                "a server of the same version takes it")
            _ = data
        },
    ]
}
