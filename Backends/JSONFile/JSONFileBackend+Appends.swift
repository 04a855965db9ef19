import Foundation
import StrataInMemory
import StrataStorage
import Synchronization

/// Where a save's outcome is decided: the journal append. A save is committed once its line is
/// written and synced, and only then; everything after it (the compaction a grown journal asks
/// for) is upkeep whose failure is not the save's.
///
/// - An append that fails (a full disk, an I/O error) may have left part or all of its line on
///   disk. The journal is cut back to where the last committed save ends, so no reopen finds the
///   failed save and the next line starts clean; the save throws (`diskFull` on a full disk), and
///   the in-memory state rolls back. Should the cut itself fail, the store refuses every later
///   write (`storageFailure`, reopen it) rather than append after bytes it could not remove.
/// - An automatic compaction that fails leaves the document and the journal as they were (the temp
///   file is removed): the save that triggered it has returned, ``JSONFileBackend/compactionFailure``
///   says why, and the compaction is tried again once the journal has grown by another quarter
///   (at least 1 MiB). ``JSONFileBackend/compact()`` tries at once and throws; a close that cannot
///   compact still closes and unlocks, and the next open replays the journal.
extension JSONFileBackend {
    /// Why the last automatic compaction (after a save, or at close) failed, while none has
    /// succeeded since; `nil` when compaction is up to date. Saves are unaffected: they are
    /// durable in the journal, which grows until a compaction succeeds.
    public var compactionFailure: StrataError? { files.compactionFailure.withLock { $0 } }

    /// Appends one save's line durably, or cuts the journal back and throws.
    static func append(_ line: Data, to files: Files, path: String) throws {
        let committed = files.journalBytes.load(ordering: .relaxed)
        do {
            try files.journal.withLock { handle in
                try handle.write(contentsOf: line)
                try handle.synchronize()
            }
        } catch {
            let cut: Bool
            do {
                try files.journal.withLock { handle in
                    try handle.truncate(atOffset: UInt64(committed))
                    try handle.synchronize()
                }
                cut = true
            } catch {
                cut = false
                files.journalUnsound.store(true, ordering: .releasing)
            }
            var failure = StoreFiles.writeFailure(
                error, at: journalPath(path), "\(journalPath(path)) cannot be written")
            if !cut {
                failure.message += "; the failed entry could not be cut off, so the store refuses writes until reopened"
            }
            throw failure
        }
        files.journalBytes.add(line.count, ordering: .relaxed)
    }

    /// Refuses a write after an append whose failure could not be cut off the journal.
    static func checkJournalSound(_ files: Files, path: String) throws {
        guard files.journalUnsound.load(ordering: .acquiring) else { return }
        throw StrataError(
            .storageFailure,
            "\(journalPath(path)) ends in a failed entry that could not be removed: close and reopen the store")
    }

    /// Compacts when the journal has outgrown the document (and any failed attempt's retry
    /// point); a failure is recorded, never thrown.
    static func compactIfDue(memory: InMemoryBackend, files: Files, path: String) async {
        let journal = files.journalBytes.load(ordering: .relaxed)
        let due = max(
            1 << 20, files.documentBytes.load(ordering: .relaxed), files.compactionRetryBytes.load(ordering: .relaxed))
        guard journal > due else { return }
        do {
            try await compact(memory: memory, files: files, path: path)
            files.compactionRetryBytes.store(0, ordering: .relaxed)
            files.compactionFailure.withLock { $0 = nil }
        } catch {
            files.compactionRetryBytes.store(journal + max(1 << 20, journal / 4), ordering: .relaxed)
            files.compactionFailure.withLock { $0 = typed(error, path: path) }
        }
    }

    /// `error` as a `StrataError` (a compaction's own errors already are).
    static func typed(_ error: any Error, path: String) -> StrataError {
        (error as? StrataError) ?? StoreFiles.writeFailure(error, at: path, "\(path) cannot be compacted")
    }
}
