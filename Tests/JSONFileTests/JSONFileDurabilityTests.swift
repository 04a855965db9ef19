import Foundation
import Strata
import StrataConformance
import StrataJSONFile
import Testing

let jsonDurable = DurableBackend(
    name: "JSON file", location: { $0 + "/store.json" }, scheme: "json",
    register: { JSONFileBackend.register(in: $0) },
    open: { try await JSONFileBackend.open(path: $0, schema: $1) },
    verify: { try await JSONFileBackend.verify(path: $0, schema: $1) },
    files: { [("data", $0), ("log", $0 + ".journal")] }, pageSize: 4_096,
    compact: { backend in try await (backend as? JSONFileBackend)?.compact() },
    reportedRecovery: { backend in (backend as? JSONFileBackend)?.recoveredTornJournalTail ?? false })

/// Seeded damaged files (`STRATA_DAMAGE_TRIALS`, `STRATA_DAMAGE_SEED`) and kill -9 in each window
/// (`STRATA_KILL_TRIALS`, `STRATA_KILL_SEED`): see `DamageHarness` and `KillHarness`.
@Suite("JSON file: damaged files and kills", .serialized)
struct JSONFileDurabilityTests {
    @Test(.enabled(if: KillHarness.childWindow != nil, "runs only as the child the kill tests start"))
    func child() async throws { try await KillHarness.childMain(jsonDurable) }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func everyFileCutAtEveryLengthThatMattersGivesAReportOrATypedError() async throws {
        let failures = try await DurabilityRun.truncations(jsonDurable)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(
        .enabled(if: KillHarness.childWindow == nil),
        .enabled(if: SmallDisk.unavailableReason == nil, "needs a tmpfs of its own (root): SmallDisk.unavailableReason")
    )
    func aSaveThatFailsOnAFullDiskSaysSoAndIsAbsentAfterEveryReopen() async throws {
        let tally = try await DurabilityRun.diskFull(jsonDurable)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func damagedFilesGiveTypedErrorsOrReportedLossNeverWrongValues() async throws {
        let tally = try await DurabilityRun.damage(jsonDurable)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil), arguments: KillHarness.Window.saveWindows)
    func aKilledWriterLeavesEveryAcknowledgedSave(window: KillHarness.Window) async throws {
        let tally = try await DurabilityRun.kills(jsonDurable, window: window, filter: "JSONFileDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aClientKilledMidSyncKeepsWhatWasAcknowledgedAndConverges() async throws {
        let tally = try await DurabilityRun.syncKills(jsonDurable, filter: "JSONFileDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            tally.counts["sync"]?.values.reduce(0, +) == DurabilitySettings.count("STRATA_SYNC_KILL_TRIALS", default: 8)
        )
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aKilledMigrationLeavesTheOldStoreOrTheNewWholeAndARetrySucceeds() async throws {
        let tally = try await DurabilityRun.migrationKills(jsonDurable, filter: "JSONFileDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            (tally.counts["migration"]?.values.reduce(0, +) ?? 0) >= 50
                || ProcessInfo.processInfo.environment["STRATA_MIGRATION_KILL_TRIALS"] != nil)
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aShadowCopyMigrationRefusesAnOpenStoreAndKeepsABackup() async throws {
        let failures = try await DurabilityRun.shadowCopyFiles(jsonDurable)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aKilledShadowCopyMigrationLeavesTheOldStoreOrTheNewWithItsBackup() async throws {
        let tally = try await DurabilityRun.migrationKills(
            jsonDurable, filter: "JSONFileDurabilityTests", throughShadowCopy: true)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            (tally.counts["shadowMigration"]?.values.reduce(0, +) ?? 0) >= 25
                || ProcessInfo.processInfo.environment["STRATA_SHADOW_KILL_TRIALS"] != nil)
    }
}
