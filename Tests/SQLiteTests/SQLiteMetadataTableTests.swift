import Foundation
import GRDB
import GRDBSQLite
import Strata
import StrataConformance
import Testing

@testable import StrataSQLite

/// The metadata table holds a file's chunks (256 KiB each) beside small keys. A key is found
/// through its index without reading any other row's overflow pages, in new stores and in
/// stores whose table was made `WITHOUT ROWID`, which the open converts.
@Suite("SQLite: the metadata table")
struct SQLiteMetadataTableTests {
    static let chunkBytes = 256 << 10

    /// Forty chunk-sized values and one small one, written through the backend.
    static func fill(_ path: String) async throws {
        let backend = try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema())
        try await backend.write { transaction in
            for index in 0..<40 {
                try transaction.setMetadata(
                    "test.chunk.\(index)", [UInt8](repeating: UInt8(index), count: Self.chunkBytes))
            }
            try transaction.setMetadata("test.small", [1, 2, 3])
        }
        try await backend.close()
    }

    /// The pages a fresh connection reads to answer the backend's metadata lookup for `key`.
    static func pagesRead(_ path: String, key: String) throws -> Int32 {
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        return try database.read { db in
            // The schema is read before the lookup is counted.
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master")
            guard let connection = db.sqliteConnection else { return -1 }
            var (before, after, highWater) = (Int32(0), Int32(0), Int32(0))
            sqlite3_db_status(connection, SQLITE_DBSTATUS_CACHE_MISS, &before, &highWater, 0)
            let value = try Data.fetchOne(
                db, sql: "SELECT value FROM \(SQLiteLayout.metaTable) WHERE key = ?", arguments: [key])
            #expect(value == Data([1, 2, 3]))
            sqlite3_db_status(connection, SQLITE_DBSTATUS_CACHE_MISS, &after, &highWater, 0)
            return after - before
        }
    }

    static func isWithoutRowid(_ path: String) throws -> Bool {
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        return try database.read { try SQLiteBackend.metaTableIsWithoutRowid($0) }
    }

    @Test func aSmallKeyIsReadWithoutTheChunksBesideIt() async throws {
        try await withTemporaryPath { path in
            try await Self.fill(path)
            #expect(try !Self.isWithoutRowid(path))
            let pages = try Self.pagesRead(path, key: "test.small")
            // The key's index and the table's B-tree, a few levels each; a chunk is 64 pages.
            #expect(pages > 0 && pages <= 8, "a lookup read \(pages) pages")
        }
    }

    @Test func aTableMadeWithoutRowidIsConvertedOnOpenKeepingEveryValue() async throws {
        try await withTemporaryPath { path in
            try await Self.fill(path)
            // The table as stores written before this change have it.
            let database = try DatabaseQueue(path: path)
            try await database.write { db in
                try SQLiteBackend.rebuildMetaTable(db) { SQLiteLayout.metaTableStatement($0) + " WITHOUT ROWID" }
            }
            #expect(try await database.read { try SQLiteBackend.metaTableIsWithoutRowid($0) })
            try database.close()
            let before = try Self.pagesRead(path, key: "test.small")
            #expect(before > 64, "without rowid, a seek reads chunks it compares against: \(before) pages")

            let backend = try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema())
            let (small, chunk) = try await backend.read { transaction in
                (try transaction.metadata("test.small"), try transaction.metadata("test.chunk.39"))
            }
            try await backend.close()
            #expect(small == [1, 2, 3])
            #expect(chunk == [UInt8](repeating: 39, count: Self.chunkBytes))
            #expect(try !Self.isWithoutRowid(path))
            let after = try Self.pagesRead(path, key: "test.small")
            #expect(after > 0 && after <= 8, "after the conversion a lookup read \(after) pages")
        }
    }
}
