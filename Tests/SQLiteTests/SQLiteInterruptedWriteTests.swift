import Foundation
import GRDB
import Strata
import StrataConformance
import Testing

@testable import StrataSQLite

/// A process killed in the middle of a rollback-journal write — most often during the first open
/// of a new file, while it is switched to WAL — leaves a hot journal. The read-only inspection
/// that guards against modifying foreign files cannot roll it back; the store must still open,
/// recovered, and a foreign database must still be left exactly as it was.
@Suite("SQLite: interrupted writes")
struct SQLiteInterruptedWriteTests {
    /// Copies `path` (and its journal) while a large write is in flight on it: the copy is what a
    /// process killed at that moment leaves behind. The write itself is then rolled back.
    static func crashCopy(of path: String, to crashed: String, prepare: (Database) throws -> Void = { _ in }) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try prepare(db)
            // A tiny cache makes SQLite spill changed pages into the file before the commit.
            try db.execute(sql: "PRAGMA cache_size = 4")
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: "CREATE TABLE scratch (x BLOB)")
            for _ in 0..<200 { try db.execute(sql: "INSERT INTO scratch VALUES (randomblob(4000))") }
            try FileManager.default.copyItem(atPath: path, toPath: crashed)
            try FileManager.default.copyItem(atPath: path + "-journal", toPath: crashed + "-journal")
            try db.execute(sql: "ROLLBACK")
        }
        try queue.close()
    }

    static func hasJournal(_ path: String) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-journal")[.size] as? Int) ?? 0) > 0
    }

    @Test func aStoreWithAnInterruptedWriteOpensRecovered() async throws {
        try await withTemporaryPath { path in
            let schema = try TravelDomain.schema()
            let store = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
            try await store.repository(Person.self).insert(contentsOf: (0..<50).map { Person(name: "P\($0)") })
            try await store.close()
            let crashed = path + ".crashed"
            try Self.crashCopy(of: path, to: crashed)
            #expect(Self.hasJournal(crashed), "the copy holds a hot journal")
            #expect(
                FileManager.default.contents(atPath: crashed) != FileManager.default.contents(atPath: path),
                "the copy holds pages of the unfinished write")

            let recovered = Store(backend: try await SQLiteBackend.open(path: crashed, schema: schema))
            #expect(try await recovered.repository(Person.self).count() == 50)
            try await recovered.repository(Person.self).insert(Person(name: "after"))
            try await recovered.close()
            #expect(!Self.hasJournal(crashed), "the journal was rolled back")
            let again = Store(backend: try await SQLiteBackend.open(path: crashed, schema: schema))
            #expect(try await again.repository(Person.self).count() == 51)
            try await again.close()
        }
    }

    @Test func aForeignDatabaseWithAnInterruptedWriteIsLeftAlone() async throws {
        try await withTemporaryPath { path in
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
            }
            try queue.close()
            let crashed = path + ".crashed"
            try Self.crashCopy(of: path, to: crashed)
            let journal = FileManager.default.contents(atPath: crashed + "-journal")
            #expect(journal?.isEmpty == false)
            try await expectOpenFails(.notAStore, at: crashed)
            #expect(
                FileManager.default.contents(atPath: crashed + "-journal") == journal, "the journal must not change")
        }
    }

    @Test func aStoreOfAnotherSchemaWithAnInterruptedWriteIsLeftAlone() async throws {
        try await withTemporaryPath { path in
            let store = Store(backend: try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema()))
            try await store.close()
            let crashed = path + ".crashed"
            try Self.crashCopy(of: path, to: crashed)
            let journal = FileManager.default.contents(atPath: crashed + "-journal")
            let other = try Schema(entities: [
                EntityDescription(
                    name: "Tag", idKind: .string, attributes: [AttributeDescription(name: "title", type: .string)])
            ])
            try await expectOpenFails(.incompatibleStore, at: crashed, schema: other)
            #expect(
                FileManager.default.contents(atPath: crashed + "-journal") == journal, "the journal must not change")
        }
    }
}
