import Foundation
import Strata

/// What a shadow-copy migration does with a backend's files (`MigrationStrategy.shadowCopy(backup:)`):
/// it refuses while another handle has the store open, leaving the store and no copy behind; with
/// a backup, the backup opens as the old version with every record, and the store as the new.
public enum ShadowCopyFiles {
    /// Runs the two cases in a fresh directory under `directory`; returns the failures.
    public static func check(_ backend: DurableBackend, in directory: String) async throws -> [String] {
        var failures: [String] = []
        let location = backend.location(directory)
        let version1 = try LedgerEntry.schema()
        let original = Store(backend: try await backend.open(location, version1))
        for batch in 0..<5 { try await DurableBackend.save(original, batch: batch, size: KillHarness.batchSize) }
        let entries = (0..<5).flatMap { LedgerEntry.batch($0, size: KillHarness.batchSize) }
        let before = try await original.read { try $0.fetch(FetchPlan(entity: "LedgerEntry")) }
        let backup = MigrationKillHarness.backup(location)
        let plan = try MigrationKillHarness.plan().strategy(.shadowCopy(backup: backup))

        // `original` is still open: the copy must not replace the file under it.
        do {
            _ = try await backend.open(location, schema: try MigrationKillHarness.version2(), migrations: plan)
            failures.append("a shadow-copy migration replaced a store another handle had open")
        } catch let error as StrataError where error.code == .storeInUse || error.code == .incompatibleStore {
            // A JSON store open in this process refuses a second open with another schema first.
            if !error.message.contains("open") {
                failures.append("the refusal does not say the store is open: \(error)")
            }
        }
        let after = try await original.read { try $0.fetch(FetchPlan(entity: "LedgerEntry")) }
        if after != before { failures.append("the refused migration changed the store") }
        let leftovers =
            (try? FileManager.default.contentsOfDirectory(atPath: directory))?.filter { $0.contains("strata-shadow") }
            ?? []
        if !leftovers.isEmpty { failures.append("the refused migration left its copy: \(leftovers)") }
        try await original.close()

        // Closed everywhere: it migrates, and the backup holds version 1.
        let migrated = try await backend.open(location, schema: try MigrationKillHarness.version2(), migrations: plan)
        do {
            try await MigrationKillHarness.check(
                migrated, entries: entries, expected: MigrationKillHarness.expected2, history: 6, version: "2")
        } catch {
            failures.append("the migrated store: \(error)")
        }
        try await migrated.close()
        do {
            let old = Store(backend: try await backend.open(backup, version1))
            try await MigrationKillHarness.check(
                old, entries: entries, expected: MigrationKillHarness.expected1, history: 5, version: "1 (the backup)")
            try await old.close()
        } catch {
            failures.append("the backup: \(error)")
        }
        return failures
    }
}
