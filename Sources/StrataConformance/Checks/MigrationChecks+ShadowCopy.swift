import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// Migrating through a shadow copy (`MigrationStrategy.shadowCopy(backup:)`) ends exactly where
/// migrating in place does; a backend without the primitive refuses it and changes nothing.
extension MigrationChecks {
    /// More records than one migration batch (1,000), so the copy commits several checkpoints.
    static let shadowTagCount = 2_345

    /// A store seeded with `data`, 2,345 more tags, and a waiting outbox mutation.
    static func shadowFixture(_ c: ConformanceContext, _ data: TravelData) async throws -> Store {
        let store = try await c.store().withSync(SyncConfiguration(clientID: "shadow"))
        try await TravelData.seed(store, with: data)
        try await store.transaction(author: "bulk") { tx in
            for number in 0..<shadowTagCount {
                try tx.insert(
                    Record(entity: "Tag", id: .string("t\(number)"), values: ["label": .string("Tag \(number)")]))
            }
            try tx.update("Stop", id: data.alfama.id.recordID, set: ["name": .string("Alfama Alta")])
        }
        return store
    }

    /// Version 2 renames `Stop.name` to `title` and adds `Tag.pinned`; a custom stage then marks
    /// every tag whose number is even (it touches every tag record).
    static func shadowPlan() throws -> MigrationPlan {
        var versions = try stopNameChain(["title"])
        var entities = versions[1].schema.entities
        if let tag = entities.firstIndex(where: { $0.name == "Tag" }) {
            entities[tag].attributes.append(
                AttributeDescription(name: "pinned", type: .bool, defaultValue: .bool(false)))
        }
        versions[1] = SchemaVersion("2", try Schema(entities: entities))
        let stage = MigrationStage.custom(from: "1", to: "2") { migration in
            try migration.forEachRecord("Tag") { tag in
                guard case .string(let id) = tag.id.value, let number = Int(id.dropFirst()), number % 2 == 0 else {
                    return
                }
                var pinned = tag
                pinned["pinned"] = .bool(true)
                try migration.put(pinned)
            }
        }
        return MigrationPlan(versions: versions, stages: [stage])
    }

    static let shadowCopies: [ConformanceCheck] = [
        ConformanceCheck(.migration, "aShadowCopyMigrationEndsEqualToInPlace", requires: [.migrate]) { c in
            let data = TravelData()
            let inPlace = try await shadowFixture(c, data)
            let copied = try await shadowFixture(c, data)
            let plan = try shadowPlan()
            let app = try expectNotNil(plan.versions.last).schema
            guard copied.backend is any ShadowMigratingBackend else {
                // Not every backend can copy its store: it says so, and nothing changes.
                try await expectMigrationRefused(c, copied, .unsupportedStore) {
                    _ = try await c.migrate(copied, to: app, plan: plan.strategy(.shadowCopy()))
                }
                return
            }
            let a = try await c.migrate(inPlace, to: app, plan: plan.strategy(.inPlace))
            let progress = Mutex<[MigrationProgress]>([])
            let b = try await c.migrate(copied, to: app, plan: plan.strategy(.shadowCopy())) { step in
                progress.withLock { $0.append(step) }
            }
            let phases = progress.withLock { $0 }
            let (left, right) = (try await StoreSnapshot.take(a), try await StoreSnapshot.take(b))
            try expect(left == right, "the two migrations end alike: \(left.difference(from: right))")
            try expectEqual(left.records.count, right.records.count)
            try expectEqual(
                try await a.history(after: nil).map(\.author), try await b.history(after: nil).map(\.author),
                "the same history")
            let pinned = try await b.read {
                try $0.count(FetchPlan(entity: "Tag", predicate: .compare("pinned", .equal, .bool(true), [])))
            }
            try expectEqual(pinned, (shadowTagCount + 1) / 2, "the custom stage ran over every batch")
            let server = InProcessTransport(server: SyncServer(store: try await c.store(app)))
            let outboxA = try await SyncEngine(store: a, remote: server).pendingMutations()
            let outboxB = try await SyncEngine(store: b, remote: server).pendingMutations()
            try expectEqual(outboxA.map(\.values), outboxB.map(\.values), "the same waiting mutations")
            try expect(
                outboxB.contains { $0.values["title"] == .string("Alfama Alta") }, "re-expressed in the new names")
            let copying = phases.filter { $0.phase == .copying(entity: "Tag") }
            try expect(copying.count >= 3, "the tags are copied in several batches: \(copying.count)")
        },
        ConformanceCheck(
            .migration, "aShadowCopyMigrationFailingAfterACheckpointLeavesTheStoreAndARetrySucceeds",
            requires: [.migrate]
        ) { c in
            let store = try await shadowFixture(c, TravelData())
            guard store.backend is any ShadowMigratingBackend else {
                try await expectMigrationRefused(c, store, .unsupportedStore) {
                    _ = try await c.migrate(
                        store, to: try shadowPlan().versions[1].schema, plan: try shadowPlan().strategy(.shadowCopy()))
                }
                return
            }
            var plan = try shadowPlan()
            let app = plan.versions[1].schema
            // Fails after the copy committed more than one batch of tags.
            plan.stages = [
                MigrationStage.custom(from: "1", to: "2") { migration in
                    var seen = 0
                    try migration.forEachRecord("Tag") { tag in
                        seen += 1
                        if seen == 2_001 {
                            throw StrataError(
                                .validationFailed, entity: "Tag", recordID: tag.id, property: "pinned",
                                "tag 2001 cannot be pinned")
                        }
                        var pinned = tag
                        pinned["pinned"] = .bool(true)
                        try migration.put(pinned)
                    }
                }
            ]
            let (_, reopened) = try await expectMigrationRefused(
                c, store, .validationFailed, entity: "Tag", property: "pinned"
            ) {
                _ = try await c.migrate(store, to: app, plan: plan.strategy(.shadowCopy()))
            }
            let retried = try await c.migrate(reopened, to: app, plan: try shadowPlan().strategy(.shadowCopy()))
            try expectEqual(
                try await retried.read { try $0.count(FetchPlan(entity: "Tag")) }, shadowTagCount + 3,
                "every tag, migrated")
        },
    ]
}
