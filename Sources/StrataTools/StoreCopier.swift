import Foundation
import Strata

/// Copies one store into another — any backend to any backend — through the engine's load mode,
/// then proves the copy equal by digest (`strata copy`).
public struct StoreCopier: Sendable {
    /// What a copy did.
    public struct Outcome: Sendable {
        /// Records copied.
        public var records: Int
        /// Files copied (their bytes, each checked against its digest).
        public var files = 0
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

    /// Copies every record in ID order, a page at a time (memory bounded by a page) through
    /// `Store.streamRecords(_:batchSize:)` — one snapshot of the source where its backend holds
    /// one, so a copy of a store in use is of one state; `progress`
    /// receives the records copied so far. A non-empty target is `StrataError.Code.duplicateID`
    /// on the first record it already holds — check emptiness first for a friendlier message.
    public func run(progress: @Sendable (Int) -> Void = { _ in }) async throws -> Outcome {
        // Files first, so every record that refers to one finds its bytes.
        let files = try await copyFiles()
        let loader = StoreLoader(store: target)
        var copied = 0
        var digest = StoreDigest()
        var accumulators: [String: StoreDigest.Accumulator] = [:]
        // One stream over every entity: one snapshot of the source where its backend holds one.
        for try await batch in source.streamRecords(batchSize: batch).batches {
            guard let first = batch.first, let entity = source.schema.entity(first.record.entity) else { continue }
            var accumulator = accumulators[entity.name] ?? StoreDigest.Accumulator()
            for (record, links) in batch { accumulator.add(record, links: links, entity: entity) }
            accumulators[entity.name] = accumulator
            copied += batch.count
            try await loader.load(batch.map { LoadedRecord(record: $0.record, links: $0.links) }, through: copied)
            progress(copied)
        }
        for entity in source.schema.entities {
            digest.entities[entity.name] = (accumulators[entity.name] ?? StoreDigest.Accumulator()).result
        }
        let dangling = try await loader.finish()
        if history { try await target.replaceHistory(with: source) }
        return Outcome(
            records: copied, files: files, source: digest, copy: try await target.digest(pageSize: batch),
            dangling: dangling)
    }

    /// Copies the bytes of every file the source holds, chunk by chunk, each checked by digest.
    private func copyFiles() async throws -> Int {
        var copied = 0
        var after: FileReference?
        while true {
            let page = try await source.files.stored(after: after, limit: 100)
            for file in page where try await target.files.copy(file, from: source.files) { copied += 1 }
            guard page.count == 100 else { return copied }
            after = page.last
        }
    }
}
