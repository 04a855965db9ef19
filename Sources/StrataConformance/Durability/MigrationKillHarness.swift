import Foundation
import Strata

/// Kill -9 during a migration: the parent writes a store of ledger entries (version 1), a child
/// process opens it with a plan to version 2 — a rename, an added attribute with a default, an
/// added index, and a custom stage rewriting every record — and the parent kills it at a seeded
/// moment. The contract: the store is then either version 1, whole and exact (and opening it
/// with the plan again migrates it), or version 2, whole and exact — never a mix, never
/// unopenable.
public enum MigrationKillHarness {
    /// Saves the parent writes before each trial, of ``KillHarness/batchSize`` entries each.
    public static let saves = 60

    /// Version 2 of the ledger: `label` renamed `title`, `checked` added (default false, then set
    /// by the custom stage on every even position), `amount` indexed.
    public static func version2() throws -> Schema {
        var entity = try LedgerEntry.entityDescription()
        for index in entity.attributes.indices {
            if entity.attributes[index].name == "label" {
                entity.attributes[index].name = "title"
                entity.attributes[index].renamedFrom = "label"
            }
            if entity.attributes[index].name == "amount" { entity.attributes[index].isIndexed = true }
        }
        entity.attributes.append(AttributeDescription(name: "checked", type: .bool, defaultValue: .bool(false)))
        return try Schema(entities: [entity])
    }

    /// Versions 1 and 2, the second reached by a custom stage.
    public static func plan() throws -> MigrationPlan {
        MigrationPlan(
            versions: [SchemaVersion("1", try LedgerEntry.schema()), SchemaVersion("2", try version2())],
            stages: [
                .custom(from: "1", to: "2") { migration in
                    try migration.forEachRecord("LedgerEntry") { record in
                        guard case .int(let position) = record["position"], position % 2 == 0 else { return }
                        var checked = record
                        checked["checked"] = .bool(true)
                        try migration.put(checked)
                    }
                }
            ])
    }

    /// What version 2 holds for an entry.
    static func expected2(_ entry: LedgerEntry) -> [String: Value] {
        [
            "batch": .int(Int64(entry.batch)), "position": .int(Int64(entry.position)), "title": .string(entry.label),
            "amount": .double(entry.amount), "note": .string(entry.note), "when": .date(entry.when),
            "checked": .bool(entry.position % 2 == 0),
        ]
    }

    static func expected1(_ entry: LedgerEntry) -> [String: Value] {
        [
            "batch": .int(Int64(entry.batch)), "position": .int(Int64(entry.position)), "label": .string(entry.label),
            "amount": .double(entry.amount), "note": .string(entry.note), "when": .date(entry.when),
        ]
    }

    /// Where the shadow-copy trials keep the old store.
    static func backup(_ location: String) -> String { location + ".backup" }

    /// The plan, in place or through a shadow copy keeping a backup.
    static func plan(throughShadowCopy: Bool, location: String) throws -> MigrationPlan {
        try plan().strategy(throughShadowCopy ? .shadowCopy(backup: backup(location)) : .inPlace)
    }

    /// The child: mark the start, migrate, mark the end, then wait to be killed.
    static func childMain(_ backend: DurableBackend, location: String, throughShadowCopy: Bool) async throws {
        _ = FileManager.default.createFile(atPath: location + ".migrating", contents: nil)
        let plan = try plan(throughShadowCopy: throughShadowCopy, location: location)
        let store = try await backend.open(location, schema: try version2(), migrations: plan)
        _ = FileManager.default.createFile(atPath: location + ".migrated", contents: nil)
        _ = store
        while true { try await Task.sleep(for: .seconds(60)) }
    }

    /// Runs `trials` kills, each in a fresh directory under `directory`.
    public static func run(
        _ backend: DurableBackend, in directory: String, trials: Int, seed: UInt64, filter: String,
        throughShadowCopy: Bool = false
    ) async throws -> DurabilityTally {
        var tally = DurabilityTally()
        let manager = FileManager.default
        let window = throughShadowCopy ? KillHarness.Window.shadowMigration : .migration
        let category = window.rawValue
        let entries = (0..<saves).flatMap { LedgerEntry.batch($0, size: KillHarness.batchSize) }
        var span: UInt32 = 1_000
        for trial in 0..<trials {
            var random = SeededRandom(seed: seed &+ UInt64(trial) &* 0x9E37_79B9_7F4A_7C15)
            let trialDirectory = directory + "/migration-\(trial)"
            try manager.createDirectory(atPath: trialDirectory, withIntermediateDirectories: true)
            defer { try? manager.removeItem(atPath: trialDirectory) }
            let location = backend.location(trialDirectory)
            let label = "seed \(seed) trial \(trial)"
            let original = Store(backend: try await backend.open(location, try LedgerEntry.schema()))
            for batch in 0..<saves {
                try await DurableBackend.save(original, batch: batch, size: KillHarness.batchSize)
            }
            try await original.close()

            let child = try SpawnedProcess(
                executable: CommandLine.arguments[0],
                arguments: ["--testing-library", "swift-testing", "--filter", filter],
                environment: ProcessInfo.processInfo.environment.merging(
                    [KillHarness.windowVariable: window.rawValue, KillHarness.locationVariable: location],
                    uniquingKeysWith: { $1 }))
            let deadline = Date().addingTimeInterval(120)
            while !manager.fileExists(atPath: location + ".migrating"), child.isRunning, Date() < deadline {
                try await Task.sleep(for: .microseconds(200))
            }
            guard child.isRunning else {
                tally.fail(
                    category, "\(label): the child ended by itself (status \(child.terminationStatus)) before migrating"
                )
                continue
            }
            if trial == 0 {
                // The first trial times a whole migration (killed once it is done), so later
                // kills spread over it and a little after.
                let began = Date()
                while !manager.fileExists(atPath: location + ".migrated"), child.isRunning, Date() < deadline {
                    try await Task.sleep(for: .microseconds(200))
                }
                span = max(span, UInt32(min(Date().timeIntervalSince(began), 10) * 1_300_000))
            } else {
                try await Task.sleep(for: .microseconds(random.below(Int(span))))
            }
            child.send(SIGKILL)
            _ = await child.exit()
            do {
                tally.add(
                    category,
                    try await examine(
                        backend, location: location, entries: entries, throughShadowCopy: throughShadowCopy))
            } catch {
                tally.fail(category, "\(label): \(error)")
            }
        }
        return tally
    }

    /// Which version the store is, checked whole; then (for version 1) the retried migration.
    static func examine(_ backend: DurableBackend, location: String, entries: [LedgerEntry], throughShadowCopy: Bool)
        async throws -> String
    {
        let version1 = try LedgerEntry.schema()
        let first: any StorageBackend
        do {
            first = try await backend.open(location, version1)
        } catch let error as StrataError where error.code == .incompatibleStore {
            let store = Store(backend: try await backend.open(location, try version2()))
            try await check(store, entries: entries, expected: expected2, history: saves + 1, version: "2")
            try await store.close()
            guard throughShadowCopy else { return "version 2, whole" }
            // The backup is made before the copy takes the store's place: it must be there.
            let backup = Store(backend: try await backend.open(Self.backup(location), version1))
            try await check(backup, entries: entries, expected: expected1, history: saves, version: "1 (the backup)")
            try await backup.close()
            return "version 2, whole, and the backup version 1, whole"
        }
        let old = Store(backend: first)
        try await check(old, entries: entries, expected: expected1, history: saves, version: "1")
        try await old.close()
        let plan = try plan(throughShadowCopy: throughShadowCopy, location: location)
        let retried = try await backend.open(location, schema: try version2(), migrations: plan)
        try await check(
            retried, entries: entries, expected: expected2, history: saves + 1, version: "2 after the retry")
        try await retried.close()
        return "version 1, whole; the retry migrated it"
    }

    static func check(
        _ store: Store, entries: [LedgerEntry], expected: (LedgerEntry) -> [String: Value], history: Int,
        version: String
    ) async throws {
        let records = try await store.read { try $0.fetch(FetchPlan(entity: "LedgerEntry")) }
        let byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        guard records.count == entries.count else {
            throw ConformanceFailure(
                "\(version): \(records.count) records for \(entries.count)", fileID: #fileID, filePath: #filePath,
                line: #line)
        }
        for entry in entries {
            guard let record = byID[.string(entry.id)] else {
                throw ConformanceFailure(
                    "\(version): \(entry.id) is missing", fileID: #fileID, filePath: #filePath, line: #line)
            }
            let values = record.values.filter { !$0.value.isNull }
            if values != expected(entry) {
                throw ConformanceFailure(
                    "\(version): \(entry.id) holds \(values), not \(expected(entry)) — a mix of versions?",
                    fileID: #fileID, filePath: #filePath, line: #line)
            }
        }
        let transactions = try await store.history().count
        guard transactions == history else {
            throw ConformanceFailure(
                "\(version): \(transactions) history transactions, expected \(history)", fileID: #fileID,
                filePath: #filePath, line: #line)
        }
        // The new index answers for every record (an index built by halves would not).
        if version.hasPrefix("2"), let entry = entries.last {
            let found = try await store.read {
                try $0.fetch(
                    FetchPlan(entity: "LedgerEntry", predicate: .compare("amount", .equal, .double(entry.amount), [])))
            }
            guard found.contains(where: { $0.id == .string(entry.id) }) else {
                throw ConformanceFailure(
                    "\(version): the amount index does not find \(entry.id)", fileID: #fileID, filePath: #filePath,
                    line: #line)
            }
        }
    }
}
