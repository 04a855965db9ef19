import Foundation
import Strata

/// Copies one store into another — any backend to any backend — through the engine's load mode,
/// then proves the copy equal by digest (`strata copy`).
public struct StoreCopier: Sendable {
    /// What a copy did.
    public struct Outcome: Sendable {
        /// Records copied.
        public var records: Int
        /// The source's digest, taken as its pages were read.
        public var source: StoreDigest
        /// The copy's digest, read back from the target.
        public var copy: StoreDigest
        /// References that dangle in the copy (and, when the digests are equal, in the source).
        public var dangling: [StrataError]
        /// Whether the two stores' digests are equal.
        public var isEqual: Bool { source == copy }
    }

    /// The store copied from.
    public let source: Store
    /// The store copied into.
    public let target: Store
    /// Records per page read and per save.
    public var batch: Int
    /// Also make the target's history the source's.
    public var history: Bool

    /// A copier of `source` into `target`, `batch` records per save, with the history when `history` is true.
    public init(from source: Store, to target: Store, batch: Int = 1_000, history: Bool = false) {
        self.source = source
        self.target = target
        self.batch = max(1, batch)
        self.history = history
    }

    /// Copies every record in ID order, a page at a time (memory bounded by a page); `progress`
    /// receives the records copied so far. A non-empty target is `StrataError.Code.duplicateID`
    /// on the first record it already holds — check emptiness first for a friendlier message.
    public func run(progress: @Sendable (Int) -> Void = { _ in }) async throws -> Outcome {
        let loader = StoreLoader(store: target)
        var copied = 0
        var digest = StoreDigest()
        for entity in source.schema.entities {
            var accumulator = StoreDigest.Accumulator()
            var after: RecordID?
            while true {
                let (records, lists) = try await source.readPage(entity, after: after, limit: batch)
                for (record, links) in zip(records, lists) { accumulator.add(record, links: links, entity: entity) }
                copied += records.count
                try await loader.load(zip(records, lists).map { LoadedRecord(record: $0, links: $1) }, through: copied)
                progress(copied)
                guard records.count == batch, let last = records.last else { break }
                after = last.id
            }
            digest.entities[entity.name] = accumulator.result
        }
        let dangling = try await loader.finish()
        if history { try await target.replaceHistory(with: source) }
        return Outcome(
            records: copied, source: digest, copy: try await target.digest(pageSize: batch), dangling: dangling)
    }
}
