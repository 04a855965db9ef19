import Foundation
import Strata

/// Seeded damage trials: a store with saves in its data file and its log is copied, one file of
/// the copy damaged in one way, then verified and opened in this process the way a user would,
/// and every record read back. The outcomes the contract allows:
/// - **intact**: every record of every save, exact;
/// - **typed error at open / at read**: a `StrataError`, and a failed open left the files as they were;
/// - **loss reported**: an older state (or missing records) that verify or the open reported;
/// - **unsafe, found by verify**: damage the backend's library would crash on (LMDB), reported by
///   verify as unsafe to open — so it is not opened.
///
/// Anything else is a failure: a wrong value, a loss nothing reported, an untyped error, a failed
/// open that changed a file, or a verify that said "unsafe" of nothing.
public enum DamageHarness {
    /// Saves written before the files are damaged.
    public static let batches = 12
    /// Records per save.
    public static let batchSize = 25

    /// Builds the template store in `directory`: half the saves checkpointed into the data file,
    /// the rest left in the log as a process that stopped would leave them.
    public static func makeTemplate(_ backend: DurableBackend, in directory: String) async throws {
        let schema = try LedgerEntry.schema()
        let location = backend.location(directory + "/live")
        try FileManager.default.createDirectory(atPath: directory + "/live", withIntermediateDirectories: true)
        let first = Store(backend: try await backend.open(location, schema))
        for batch in 0..<batches / 2 { try await DurableBackend.save(first, batch: batch, size: batchSize) }
        try await first.close()
        let second = Store(backend: try await backend.open(location, schema))
        for batch in batches / 2..<batches { try await DurableBackend.save(second, batch: batch, size: batchSize) }
        // Copied while open: the log still holds the second half.
        try FileManager.default.copyItem(atPath: directory + "/live", toPath: directory + "/template")
        try await second.close()
    }

    /// Runs `trials` seeded trials against the template in `directory`.
    public static func run(_ backend: DurableBackend, in directory: String, trials: Int, seed: UInt64) async throws
        -> DurabilityTally
    {
        let schema = try LedgerEntry.schema()
        var tally = DurabilityTally()
        let manager = FileManager.default
        for trial in 0..<trials {
            var random = SeededRandom(seed: seed &+ UInt64(trial) &* 0x9E37_79B9_7F4A_7C15)
            let trialDirectory = directory + "/trial"
            try? manager.removeItem(atPath: trialDirectory)
            try manager.copyItem(atPath: directory + "/template", toPath: trialDirectory)
            let location = backend.location(trialDirectory)
            let candidates = backend.files(location).filter { manager.fileExists(atPath: $0.path) }
            guard !candidates.isEmpty else {
                throw StrataError(.storageFailure, "\(backend.name): the template has no files")
            }
            let logs = candidates.filter { $0.role != "data" }
            let file =
                !logs.isEmpty && random.chance(0.3)
                ? random.pick(logs) : random.pick(candidates.filter { $0.role == "data" })
            let kind = random.pick(DamageKind.allCases)
            let what = try kind.apply(to: file.path, pageSize: backend.pageSize, random: &random)
            let category = "\(file.role) \(kind.rawValue)"
            let label = "seed \(seed) trial \(trial): \(file.role) \(what)"
            let before = candidates.map { manager.contents(atPath: $0.path) }

            let report: VerifyReport
            do {
                report = try await backend.verify(location, schema)
            } catch let error as StrataError {
                var unreadable = VerifyReport(location: location)
                unreadable.add(error)
                report = unreadable
            } catch {
                tally.fail(category, "\(label): verify threw an untyped error: \(error)")
                continue
            }
            if !report.isSafeToOpen {
                if report.isSound { tally.fail(category, "\(label): verify called the store unsafe without a finding") }
                tally.add(category, "unsafe, found by verify")
                continue
            }
            let opened: any StorageBackend
            do {
                opened = try await backend.open(location, schema)
            } catch let error as StrataError {
                if candidates.map({ manager.contents(atPath: $0.path) }) != before {
                    tally.fail(category, "\(label): a failed open (\(error.code)) changed the files")
                } else {
                    tally.add(category, "typed error at open")
                }
                continue
            } catch {
                tally.fail(category, "\(label): the open threw an untyped error: \(error)")
                continue
            }
            let store = Store(backend: opened)
            do {
                let observation = try await LedgerObservation.observe(store, batchSize: batchSize)
                if !observation.wrong.isEmpty {
                    tally.fail(category, "\(label): silently wrong records: \(observation)")
                } else if observation.isSaveBoundary && observation.wholeBatches == batches {
                    tally.add(category, "intact")
                } else if !report.isSound || backend.reportedRecovery(opened) {
                    tally.add(category, "loss reported")
                } else {
                    tally.fail(category, "\(label): records lost and nothing reported it: \(observation)")
                }
            } catch is StrataError {
                tally.add(category, "typed error at read")
            } catch {
                tally.fail(category, "\(label): a read threw an untyped error: \(error)")
            }
            try? await store.close()
        }
        try? manager.removeItem(atPath: directory + "/trial")
        return tally
    }
}
