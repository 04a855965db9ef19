import Foundation
import Strata

/// Custom stages: what the closure sees and writes, versions bumped only where values change, a
/// throw changing nothing, type changes through a conversion, and required values checked after.
extension MigrationChecks {
    static let customStages: [ConformanceCheck] = [
        ConformanceCheck(.migration, "aCustomStageSeesOldAndNewRecordsAndBumpsWhatItChanges", requires: [.migrate]) {
            c in
            let (store, data) = try await c.seeded()
            let before = try await records(store, "Stop")
            let changed = try schema(changing: "Stop") {
                $0.attributes.append(AttributeDescription(name: "label", type: .string))
            }
            let stage = MigrationStage.custom(from: "1", to: "2") { migration in
                try migration.forEachOldRecord("Stop") { old in
                    var stop = try migration.record("Stop", id: old.id) ?? migration.newRecord("Stop", id: old.id)
                    guard case .string(let name) = old["name"], case .string(let city) = old["city"] else { return }
                    stop["label"] = .string("\(name), \(city)")
                    try migration.put(stop)
                }
            }
            let migrated = try await Self.migrated(c, store, to: changed, stages: [stage], untouched: ["Trip"])
            let stops = try await records(migrated, "Stop")
            for stop in data.stops {
                let record = try expectNotNil(stops[stop.id.recordID])
                try expectEqual(record["label"], .string("\(stop.name), \(stop.city)"))
                try expectEqual(
                    record.version, (before[stop.id.recordID]?.version ?? 0) + 1, "a changed record's version moves on")
            }
        },
        ConformanceCheck(.migration, "aCustomStageThrowingOnRecordKChangesNothing", requires: [.migrate]) { c in
            let (store, _) = try await c.seeded()
            let changed = try schema(changing: "Stop") {
                $0.attributes.append(AttributeDescription(name: "label", type: .string, isOptional: true))
            }
            let stage = MigrationStage.custom(from: "1", to: "2") { migration in
                var seen = 0
                try migration.forEachOldRecord("Stop") { old in
                    seen += 1
                    if seen == 3 {
                        throw StrataError(
                            .validationFailed, entity: "Stop", recordID: old.id, property: "label",
                            "record 3 cannot be labelled")
                    }
                    var stop = try migration.record("Stop", id: old.id) ?? migration.newRecord("Stop", id: old.id)
                    stop["label"] = .string("done")
                    try migration.put(stop)
                }
            }
            try await expectMigrationRefused(c, store, .validationFailed, entity: "Stop", property: "label") {
                _ = try await c.migrate(store, to: changed, plan: try plan(to: changed, stages: [stage]))
            }
        },
        ConformanceCheck(.migration, "aTypeChangeNeedsACustomStageWhichCanConvert", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "nights" }) {
                    entity.attributes[index].type = .bool  // lossy: no lightweight rule
                }
            }
            let (error, reopened) = try await expectMigrationRefused(
                c, store, .migrationRequired, entity: "Stop", property: "nights"
            ) {
                _ = try await c.migrate(store, to: changed, plan: try plan(to: changed))
            }
            try expect(error.message.contains("custom stage"), "the error says a custom stage is needed: \(error)")
            let stage = MigrationStage.custom(from: "1", to: "2") { migration in
                try migration.forEachOldRecord("Stop") { old in
                    var stop = try migration.record("Stop", id: old.id) ?? migration.newRecord("Stop", id: old.id)
                    if case .int(let nights) = old["nights"] { stop["nights"] = .bool(nights > 1) }
                    try migration.put(stop)
                }
            }
            let migrated = try await c.migrate(reopened, to: changed, plan: try plan(to: changed, stages: [stage]))
            try expectEqual(
                try await records(migrated, "Stop")[data.alfama.id.recordID]?["nights"],
                .bool(data.alfama.nights > 1))
        },
        ConformanceCheck(.migration, "aCustomStageLeavingARequiredValueEmptyFails", requires: [.migrate]) { c in
            let (store, _) = try await c.seeded()
            let changed = try schema(changing: "Stop") {
                $0.attributes.append(AttributeDescription(name: "label", type: .string))
            }
            let stage = MigrationStage.custom(from: "1", to: "2") { _ in }
            try await expectMigrationRefused(c, store, .missingValue, entity: "Stop", property: "label") {
                _ = try await c.migrate(store, to: changed, plan: try plan(to: changed, stages: [stage]))
            }
        },
        ConformanceCheck(
            .migration, "aCustomStagePuttingARecordWithoutARequiredValueFailsNamingIt", requires: [.migrate]
        ) { c in
            // The shape stays: no record is carried over, so only the stage's own puts are judged.
            let (store, data) = try await c.seeded()
            let same = try schema(changing: "Stop") { _ in }
            let emptied = data.stops[0].id.recordID
            let refilled = data.stops[1].id.recordID
            let stage = MigrationStage.custom(from: "1", to: "2") { migration in
                var whole: Record?
                try migration.forEachRecord("Stop") { stop in
                    guard stop.id == emptied || stop.id == refilled else { return }
                    if stop.id == refilled { whole = stop }
                    var changed = stop
                    changed["name"] = .null
                    try migration.put(changed)
                }
                // Put again whole, after a read wrote the empty one: no longer missing.
                _ = try migration.record("Stop", id: emptied)
                if let whole { try migration.put(whole) }
            }
            let (error, _) = try await expectMigrationRefused(c, store, .missingValue, entity: "Stop", property: "name")
            {
                _ = try await c.migrate(store, to: same, plan: try plan(to: same, stages: [stage]))
            }
            try expectEqual(error.recordID, emptied, "the record left empty is named: \(error)")
            try expectEqual(error.count, 1, "the record put again whole is not counted: \(error)")
        },
    ]
}
