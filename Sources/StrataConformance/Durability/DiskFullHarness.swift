import Foundation
import Strata

/// Disk-full trials: a store on a small file system of its own (``SmallDisk``) takes saves until
/// the disk is full, then a few smaller ones; every save either returned (acknowledged) or threw.
/// The contract, checked after each step:
/// - a save that throws says `diskFull`, and is absent — in the open store, after a reopen on the
///   still-full disk (or that reopen is a typed error), and after the disk grows and the store is
///   reopened again;
/// - every acknowledged save is there whole, every value right;
/// - once space is freed the store opens, `verify` calls it sound, and a save succeeds.
public enum DiskFullHarness {
    /// The sizes of file system tried, in bytes (2, 3 and 6 MiB).
    public static let sizes = [2 << 20, 3 << 20, 6 << 20]
    /// Records in each save until the first failure.
    public static let batchSize = 40
    /// The saves tried after the first failure: smaller ones, which may fit.
    public static let afterFull = [1, 5, batchSize]

    /// One trial per size in ``sizes``.
    public static func run(_ backend: DurableBackend) async throws -> DurabilityTally {
        var tally = DurabilityTally()
        for size in sizes {
            let disk = try SmallDisk(bytes: size)
            defer { disk.unmount() }
            try await trial(backend, on: disk, size: size, into: &tally)
        }
        return tally
    }

    /// What was written: each acknowledged save's size by batch, and the failed batches.
    struct Writes: CustomStringConvertible {
        var acknowledged: [Int: Int] = [:]
        var failed: [Int] = []
        var description: String { "\(acknowledged.count) acknowledged saves, failed: \(failed)" }
    }

    private static func trial(
        _ backend: DurableBackend, on disk: SmallDisk, size: Int, into tally: inout DurabilityTally
    )
        async throws
    {
        let category = "\(size >> 20) MiB"
        let schema = try LedgerEntry.schema()
        let location = backend.location(disk.directory)
        let store = Store(backend: try await backend.open(location, schema))
        let writes = try await fill(store, category: category, into: &tally)
        if writes.failed.isEmpty { tally.fail(category, "the disk never filled: \(writes)") }
        try await expectExactly(writes, in: store, "in the open store", category, &tally)
        do { try await store.close() } catch let error as StrataError {
            tally.add(category, "typed error at close while full (\(error.code))")
        } catch {
            tally.fail(category, "close threw an untyped error: \(error)")
        }
        do {
            let full = Store(backend: try await backend.open(location, schema))
            try await expectExactly(writes, in: full, "after a reopen on the full disk", category, &tally)
            try? await full.close()
        } catch is StrataError {
            tally.add(category, "typed error at reopen while full")
        } catch {
            tally.fail(category, "reopening on the full disk threw an untyped error: \(error)")
        }
        try disk.grow(to: 64 << 20)
        let freed = Store(backend: try await backend.open(location, schema))
        try await expectExactly(writes, in: freed, "after space was freed", category, &tally)
        do {
            try await DurableBackend.save(freed, batch: 1_000_000, size: 1)
            tally.add(category, "a save succeeds once space is freed")
        } catch {
            tally.fail(category, "a save after space was freed failed: \(error)")
        }
        try await freed.close()
        let report = try await backend.verify(location, schema)
        if report.isSound {
            tally.add(category, "verify sound")
        } else {
            tally.fail(category, "verify after space was freed: \(report)")
        }
    }

    /// Saves until one fails, then the smaller ones of ``afterFull``.
    private static func fill(_ store: Store, category: String, into tally: inout DurabilityTally) async throws
        -> Writes
    {
        var writes = Writes()
        var batch = 0
        var after = afterFull[...]
        while batch < 100_000 {
            guard writes.failed.isEmpty || !after.isEmpty else { break }
            let size = writes.failed.isEmpty ? batchSize : after.removeFirst()
            do {
                try await DurableBackend.save(store, batch: batch, size: size)
                writes.acknowledged[batch] = size
            } catch let error as StrataError {
                writes.failed.append(batch)
                if error.code == .diskFull {
                    tally.add(category, "failed save named diskFull")
                } else {
                    tally.fail(category, "a save on a full disk failed as \(error.code), not diskFull: \(error)")
                }
            } catch {
                writes.failed.append(batch)
                tally.fail(category, "a save on a full disk threw an untyped error: \(error)")
            }
            batch += 1
        }
        return writes
    }

    /// Fails the trial unless `store` holds exactly the acknowledged saves, each whole and exact.
    private static func expectExactly(
        _ writes: Writes, in store: Store, _ when: String, _ category: String, _ tally: inout DurabilityTally
    ) async throws {
        let all = try await store.repository(LedgerEntry.self).fetch()
        var found: [Int: Int] = [:]
        var wrong: [String] = []
        for entry in all where entry.batch != 1_000_000 {
            if entry != LedgerEntry.expected(batch: entry.batch, position: entry.position)
                || entry.id != "e\(entry.batch)-\(entry.position)"
            {
                wrong.append(entry.id)
            }
            found[entry.batch, default: 0] += 1
        }
        let failedPresent = writes.failed.filter { found[$0] != nil }
        let missing = writes.acknowledged.filter { found[$0.key] != $0.value }.keys.sorted()
        let extra = found.keys.filter { writes.acknowledged[$0] == nil && !writes.failed.contains($0) }
        if !wrong.isEmpty { tally.fail(category, "\(when): wrong records \(wrong.prefix(5))") }
        if !failedPresent.isEmpty { tally.fail(category, "\(when): saves that threw are present: \(failedPresent)") }
        if !missing.isEmpty {
            tally.fail(category, "\(when): acknowledged saves missing or partial: \(missing.prefix(5))")
        }
        if !extra.isEmpty { tally.fail(category, "\(when): batches nobody wrote: \(extra.prefix(5))") }
        if wrong.isEmpty && failedPresent.isEmpty && missing.isEmpty && extra.isEmpty {
            tally.add(category, "exact \(when)")
        }
    }
}
