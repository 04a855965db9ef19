import Foundation
import Strata

/// The record the damage and kill harnesses write: every value is a function of the record's
/// batch and position, so a reader can tell a right record from a wrong one without a copy.
/// Saves write whole batches (one transaction each); notes vary in length and every 37th is
/// long enough to need overflow pages in LMDB.
public struct LedgerEntry: PersistentModel, Equatable {
    public var id: String
    /// The save the entry was written in.
    public var batch: Int
    /// Its position in that save.
    public var position: Int
    /// A label.
    public var label: String
    /// An amount.
    public var amount: Double
    /// A note.
    public var note: String
    /// When it was written.
    public var when: Date

    /// An entry.
    public init(id: String, batch: Int, position: Int, label: String, amount: Double, note: String, when: Date) {
        self.id = id
        self.batch = batch
        self.position = position
        self.label = label
        self.amount = amount
        self.note = note
        self.when = when
    }

    public static let entity = Entity<LedgerEntry>(
        "LedgerEntry",
        [
            .attribute(\.batch, indexed: true),
            .attribute(\.position),
            .attribute(\.label, indexed: true),
            .attribute(\.amount),
            .attribute(\.note),
            .attribute(\.when),
        ])

    /// The schema of the harness's stores.
    public static func schema() throws -> Schema { try Schema(LedgerEntry.self) }

    /// The one right value of the entry at `position` of `batch`.
    public static func expected(batch: Int, position: Int) -> LedgerEntry {
        let seed = batch &* 7_919 &+ position &* 104_729
        let noteLength = (batch * 37 + position) % 37 == 0 ? 3_000 : seed % 240
        let note = String(repeating: "abcdefghijklmnopqrstuvwxyz0123456789", count: noteLength / 36 + 1).prefix(
            noteLength)
        return LedgerEntry(
            id: "e\(batch)-\(position)", batch: batch, position: position, label: "batch \(batch) entry \(position)",
            amount: Double(seed % 100_000) / 100, note: String(note),
            when: Date(timeIntervalSince1970: 1_700_000_000 + Double(seed % 1_000_000)))
    }

    /// A whole batch, as one save writes it.
    public static func batch(_ batch: Int, size: Int) -> [LedgerEntry] {
        (0..<size).map { expected(batch: batch, position: $0) }
    }
}

/// What a store holds of the harness's batches.
public struct LedgerObservation: Sendable, CustomStringConvertible {
    /// The number of leading batches (0, 1, … k−1) the store holds whole and exact.
    public var wholeBatches = 0
    /// Entries whose values differ from the right ones: silently wrong records.
    public var wrong: [String] = []
    /// Entries present beyond the whole batches, or batches present only in part.
    public var partial: [String] = []
    /// Lookups by ID or by the indexed batch that disagree with a full read.
    public var inconsistent: [String] = []
    /// Records read back.
    public var records = 0

    /// Whether the store is exactly the first `wholeBatches` batches: a state some save left.
    public var isSaveBoundary: Bool { wrong.isEmpty && partial.isEmpty && inconsistent.isEmpty }

    public var description: String {
        "\(records) records, \(wholeBatches) whole batches" + (wrong.isEmpty ? "" : ", WRONG: \(wrong.prefix(5))")
            + (partial.isEmpty ? "" : ", partial: \(partial.prefix(5))")
            + (inconsistent.isEmpty ? "" : ", inconsistent: \(inconsistent.prefix(5))")
    }

    /// Reads the store every way a user would — everything, by ID, by the indexed batch — and
    /// compares each record with its right value. Read failures are thrown (typed, by contract).
    public static func observe(_ store: Store, batchSize: Int) async throws -> LedgerObservation {
        let entries = store.repository(LedgerEntry.self)
        var observation = LedgerObservation()
        let all = try await entries.fetch()
        observation.records = all.count
        var byBatch: [Int: Int] = [:]
        for entry in all {
            let parts = entry.id.dropFirst().split(separator: "-").compactMap { Int($0) }
            guard entry.id.hasPrefix("e"), parts.count == 2,
                entry == LedgerEntry.expected(batch: parts[0], position: parts[1]), parts[1] < batchSize
            else {
                observation.wrong.append(entry.id)
                continue
            }
            byBatch[parts[0], default: 0] += 1
        }
        while byBatch[observation.wholeBatches] == batchSize { observation.wholeBatches += 1 }
        for (batch, count) in byBatch where batch >= observation.wholeBatches {
            observation.partial.append("batch \(batch): \(count) of \(batchSize)")
        }
        // Point lookups and an indexed query must agree with the full read.
        for batch in Set([0, observation.wholeBatches / 2, max(0, observation.wholeBatches - 1)])
        where batch < observation.wholeBatches {
            for position in stride(from: 0, to: batchSize, by: 7) {
                let expected = LedgerEntry.expected(batch: batch, position: position)
                if try await entries.fetch(expected.id) != expected {
                    observation.inconsistent.append("fetch(\(expected.id))")
                }
            }
            let found = try await entries.fetch(where: \LedgerEntry.batch == batch).sorted { $0.id < $1.id }
            if found != LedgerEntry.batch(batch, size: batchSize).sorted(by: { $0.id < $1.id }) {
                observation.inconsistent.append("batch == \(batch): \(found.count) records")
            }
        }
        return observation
    }
}
