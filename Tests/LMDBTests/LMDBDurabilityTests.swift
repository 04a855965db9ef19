import Foundation
import Strata
import StrataConformance
import StrataLMDB
import Testing

let lmdbDurable = DurableBackend(
    name: "LMDB", location: { $0 + "/store" }, scheme: "lmdb", register: { LMDBBackend.register(in: $0) },
    open: { try await LMDBBackend.open(path: $0, schema: $1) },
    verify: { try await LMDBBackend.verify(path: $0, schema: $1) },
    files: { [("data", $0 + "/data.mdb")] }, pageSize: 4_096)

/// Seeded damaged files (`STRATA_DAMAGE_TRIALS`, `STRATA_DAMAGE_SEED`) and kill -9 in each window
/// (`STRATA_KILL_TRIALS`, `STRATA_KILL_SEED`): see `DamageHarness` and `KillHarness`. LMDB has no
/// log file and no compaction (freed pages are reused in place), so neither is a window here.
@Suite("LMDB: damaged files and kills", .serialized)
struct LMDBDurabilityTests {
    @Test(.enabled(if: KillHarness.childWindow != nil, "runs only as the child the kill tests start"))
    func child() async throws { try await KillHarness.childMain(lmdbDurable) }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func everyFileCutAtEveryLengthThatMattersGivesAReportOrATypedError() async throws {
        let failures = try await DurabilityRun.truncations(lmdbDurable)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(
        .enabled(if: KillHarness.childWindow == nil),
        .enabled(if: SmallDisk.unavailableReason == nil, "needs a tmpfs of its own (root): SmallDisk.unavailableReason")
    )
    func aSaveThatFailsOnAFullDiskSaysSoAndIsAbsentAfterEveryReopen() async throws {
        let tally = try await DurabilityRun.diskFull(lmdbDurable)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func damagedFilesGiveTypedErrorsOrAreFoundByVerifyNeverWrongValues() async throws {
        let tally = try await DurabilityRun.damage(lmdbDurable)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil), arguments: [KillHarness.Window.firstOpen, .save])
    func aKilledWriterLeavesEveryAcknowledgedSave(window: KillHarness.Window) async throws {
        let tally = try await DurabilityRun.kills(lmdbDurable, window: window, filter: "LMDBDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aClientKilledMidSyncKeepsWhatWasAcknowledgedAndConverges() async throws {
        let tally = try await DurabilityRun.syncKills(lmdbDurable, filter: "LMDBDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            tally.counts["sync"]?.values.reduce(0, +) == DurabilitySettings.count("STRATA_SYNC_KILL_TRIALS", default: 8)
        )
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aKilledMigrationLeavesTheOldStoreOrTheNewWholeAndARetrySucceeds() async throws {
        let tally = try await DurabilityRun.migrationKills(lmdbDurable, filter: "LMDBDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            (tally.counts["migration"]?.values.reduce(0, +) ?? 0) >= 50
                || ProcessInfo.processInfo.environment["STRATA_MIGRATION_KILL_TRIALS"] != nil)
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aShadowCopyMigrationRefusesAnOpenStoreAndKeepsABackup() async throws {
        let failures = try await DurabilityRun.shadowCopyFiles(lmdbDurable)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aKilledShadowCopyMigrationLeavesTheOldStoreOrTheNewWithItsBackup() async throws {
        let tally = try await DurabilityRun.migrationKills(
            lmdbDurable, filter: "LMDBDurabilityTests", throughShadowCopy: true)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            (tally.counts["shadowMigration"]?.values.reduce(0, +) ?? 0) >= 25
                || ProcessInfo.processInfo.environment["STRATA_SHADOW_KILL_TRIALS"] != nil)
    }
}
