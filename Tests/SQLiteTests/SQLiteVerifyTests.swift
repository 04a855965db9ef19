import Foundation
import GRDB
import Strata
import StrataConformance
import Testing

@testable import StrataSQLite

/// An open store with 4 ledger batches checkpointed into the database file and 4 more in its
/// write-ahead log, and a copy of its files as a stopped process leaves them.
private func storeWithALog(_ path: String) async throws -> (Store, String) {
    let schema = try LedgerEntry.schema()
    let first = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
    for batch in 0..<4 {
        try await first.repository(LedgerEntry.self).insert(contentsOf: LedgerEntry.batch(batch, size: 25))
    }
    try await first.close()
    let store = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
    for batch in 4..<8 {
        try await store.repository(LedgerEntry.self).insert(contentsOf: LedgerEntry.batch(batch, size: 25))
    }
    let copy = path + ".copy"
    for suffix in ["", "-wal", "-shm"] {
        try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
    }
    return (store, copy)
}

@Suite("SQLite: verify")
struct SQLiteVerifyTests {
    @Test func aSoundStoreWithALogIsSoundAndChangesNothing() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await storeWithALog(path)
            let before = ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: copy + $0) }
            let report = try await SQLiteBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(report.isSound, "\(report)")
            #expect(report.recordsChecked["LedgerEntry"] == 200)
            #expect(report.notes.contains { $0.contains("commits in") }, "the log's commits are counted: \(report)")
            #expect(
                ["", "-wal", "-shm"].map { FileManager.default.contents(atPath: copy + $0) } == before,
                "verify changes nothing")
            try await store.close()
        }
    }

    /// SQLite silently ignores a log from its first damaged frame: the store opens as it was
    /// before those commits. Verify reports the loss.
    @Test func aDamagedLogIsReportedAsLostCommits() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await storeWithALog(path)
            var log = [UInt8](try #require(FileManager.default.contents(atPath: copy + "-wal")))
            log[32 + 24 + 100] ^= 0xFF  // inside the first frame's page
            try Data(log).write(to: URL(fileURLWithPath: copy + "-wal"))
            let report = try await SQLiteBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(
                report.findings.contains { $0.message.contains("acknowledged commit") && $0.message.contains("lost") },
                "\(report.findings)")
            let reopened = Store(backend: try await SQLiteBackend.open(path: copy, schema: try LedgerEntry.schema()))
            #expect(
                try await reopened.repository(LedgerEntry.self).count() == 100,
                "SQLite's own behaviour: the older state")
            try await reopened.close()
            try await store.close()
        }
    }

    /// What a process killed inside a commit leaves: the commit's frames written (one still with
    /// a checksum SQLite had yet to fix), its commit frame too, but the wal-index never told of
    /// it — so no caller was told it committed. Verify notes it; it claims no loss.
    @Test func aCommitTheIndexNeverRecordedIsNotCalledALoss() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await storeWithALog(path)
            let index = try #require(FileManager.default.contents(atPath: copy + "-shm"))
            let before = try #require(FileManager.default.contents(atPath: copy + "-wal"))
            try await store.repository(LedgerEntry.self).insert(contentsOf: LedgerEntry.batch(8, size: 25))
            var log = [UInt8](try #require(FileManager.default.contents(atPath: path + "-wal")))
            #expect(log.count > before.count, "the last commit appended frames")
            log[before.count + 24 + 100] ^= 0xFF  // inside the first frame of the last commit
            try Data(log).write(to: URL(fileURLWithPath: copy + "-wal"))
            try index.write(to: URL(fileURLWithPath: copy + "-shm"))  // the index before that commit
            let report = try await SQLiteBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(report.isSound, "an unacknowledged commit is not damage: \(report)")
            #expect(report.notes.contains { $0.contains("interrupted while being written") }, "\(report)")
            try await store.close()
        }
    }

    @Test func aLogCutShortIsReportedThroughItsIndex() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await storeWithALog(path)
            let log = try #require(FileManager.default.contents(atPath: copy + "-wal"))
            try log.prefix(log.count / 2).write(to: URL(fileURLWithPath: copy + "-wal"))
            let report = try await SQLiteBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(report.findings.contains { $0.message.contains("its index says") }, "\(report)")
            try await store.close()
        }
    }

    @Test func aRowChangedBehindStratasBackIsNamedByEntityAndID() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await storeWithALog(path)
            try await store.close()
            let queue = try DatabaseQueue(path: copy)
            try await queue.write { db in
                try db.execute(sql: #"UPDATE "LedgerEntry" SET "amount" = 1.5 WHERE id = 'e6-3'"#)
            }
            try queue.close()
            let report = try await SQLiteBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(report.findings.count == 1, "\(report)")
            #expect(report.findings.first?.entity == "LedgerEntry")
            #expect(report.findings.first?.recordID == .string("e6-3"))
        }
    }
}
