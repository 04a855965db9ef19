import Foundation
import Strata
import StrataConformance
import StrataSQLite
import Testing

let sqliteDurable = DurableBackend(
    name: "SQLite", location: { $0 + "/store.sqlite" }, scheme: "sqlite", register: { SQLiteBackend.register(in: $0) },
    open: { try await SQLiteBackend.open(path: $0, schema: $1) },
    verify: { try await SQLiteBackend.verify(path: $0, schema: $1) },
    files: { [("data", $0), ("log", $0 + "-wal")] }, pageSize: 4_096,
    compact: { backend in try await (backend as? SQLiteBackend)?.compact() })

/// Seeded damaged files (`STRATA_DAMAGE_TRIALS`, `STRATA_DAMAGE_SEED`) and kill -9 in each window
/// (`STRATA_KILL_TRIALS`, `STRATA_KILL_SEED`): see `DamageHarness` and `KillHarness`.
@Suite("SQLite: damaged files and kills", .serialized)
struct SQLiteDurabilityTests {
    @Test(.enabled(if: KillHarness.childWindow != nil, "runs only as the child the kill tests start"))
    func child() async throws { try await KillHarness.childMain(sqliteDurable) }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func everyFileCutAtEveryLengthThatMattersGivesAReportOrATypedError() async throws {
        let failures = try await DurabilityRun.truncations(sqliteDurable)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(
        .enabled(if: KillHarness.childWindow == nil),
        .enabled(if: SmallDisk.unavailableReason == nil, "needs a tmpfs of its own (root): SmallDisk.unavailableReason")
    )
    func aSaveThatFailsOnAFullDiskSaysSoAndIsAbsentAfterEveryReopen() async throws {
        let tally = try await DurabilityRun.diskFull(sqliteDurable)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func damagedFilesGiveTypedErrorsOrReportedLossNeverWrongValues() async throws {
        let tally = try await DurabilityRun.damage(sqliteDurable)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil), arguments: KillHarness.Window.saveWindows)
    func aKilledWriterLeavesEveryAcknowledgedSave(window: KillHarness.Window) async throws {
        let tally = try await DurabilityRun.kills(sqliteDurable, window: window, filter: "SQLiteDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aClientKilledMidSyncKeepsWhatWasAcknowledgedAndConverges() async throws {
        let tally = try await DurabilityRun.syncKills(sqliteDurable, filter: "SQLiteDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            tally.counts["sync"]?.values.reduce(0, +) == DurabilitySettings.count("STRATA_SYNC_KILL_TRIALS", default: 8)
        )
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aKilledMigrationLeavesTheOldStoreOrTheNewWholeAndARetrySucceeds() async throws {
        let tally = try await DurabilityRun.migrationKills(sqliteDurable, filter: "SQLiteDurabilityTests")
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            (tally.counts["migration"]?.values.reduce(0, +) ?? 0) >= 50
                || ProcessInfo.processInfo.environment["STRATA_MIGRATION_KILL_TRIALS"] != nil)
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aShadowCopyMigrationRefusesAnOpenStoreAndKeepsABackup() async throws {
        let failures = try await DurabilityRun.shadowCopyFiles(sqliteDurable)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    @Test(.enabled(if: KillHarness.childWindow == nil))
    func aKilledShadowCopyMigrationLeavesTheOldStoreOrTheNewWithItsBackup() async throws {
        let tally = try await DurabilityRun.migrationKills(
            sqliteDurable, filter: "SQLiteDurabilityTests", throughShadowCopy: true)
        #expect(tally.failures.isEmpty, "\(tally.failures.joined(separator: "\n"))")
        #expect(
            (tally.counts["shadowMigration"]?.values.reduce(0, +) ?? 0) >= 25
                || ProcessInfo.processInfo.environment["STRATA_SHADOW_KILL_TRIALS"] != nil)
    }
}
