import Foundation
import Strata

/// A migration in place while another process has the store open would change the store's shape
/// under a process still on the old schema: it is refused (`storeInUse`, naming the holder),
/// nothing changes, and it runs once the other process has closed the store.
extension MigrationChecks {
    static let holders: [ConformanceCheck] = [
        ConformanceCheck(
            .migration, "anInPlaceMigrationIsRefusedWhileAnotherProcessHasTheStoreOpen",
            requires: [.migrate, .reopenWithAnotherSchema, .otherProcesses]
        ) { c in
            let (store, _) = try await c.seeded()
            let before = try await StoreSnapshot.take(store)
            let marker = NSTemporaryDirectory() + "strata-hold-\(UUID().uuidString)"
            defer { StoreFiles.remove([marker + ".ready", marker + ".release"]) }
            let holder = Task { try await c.runInOtherProcess(store, ["hold", marker, "-"]) }
            let deadline = ContinuousClock.now + .seconds(60)
            while !FileManager.default.fileExists(atPath: marker + ".ready"), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            guard FileManager.default.fileExists(atPath: marker + ".ready") else {
                _ = FileManager.default.createFile(atPath: marker + ".release", contents: nil)
                try await holder.value
                throw ConformanceFailure(
                    "the other process did not open the store within 60 s", fileID: #fileID, filePath: #filePath,
                    line: #line)
            }
            let versions = try stopNameChain(["title"])
            let plan = MigrationPlan(versions: versions).strategy(.inPlace)
            let error = try await expectError(.storeInUse) {
                _ = try await c.migrate(store, to: versions[1].schema, plan: plan)
            }
            try expect(error.message.contains("process"), "the error names the holder: \(error)")
            _ = FileManager.default.createFile(atPath: marker + ".release", contents: nil)
            try await holder.value
            let reopened = try await c.reopen(store, with: try TravelDomain.schema())
            try expectEqual(try await StoreSnapshot.take(reopened), before, "the refused migration changed nothing")
            let migrated = try await c.migrate(reopened, to: versions[1].schema, plan: plan)
            try expectEqual(
                migrated.schema.entity("Stop")?.attribute("title") != nil, true,
                "it migrates once the other process closed")
        }
    ]
}
