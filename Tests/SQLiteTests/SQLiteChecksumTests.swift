import Foundation
import GRDB
import Strata
import StrataConformance
import Testing

@testable import StrataSQLite

/// SQLite keeps no checksums of its own: a byte flipped inside a row reads back as a wrong value.
/// Every row carries a CRC-32 of its ID, version and values, checked on every read.
@Suite("SQLite: record checksums")
struct SQLiteChecksumTests {
    @Test func aFlippedByteInARowIsCorruptStoreNamingIt() async throws {
        try await withTemporaryPath { path in
            let schema = try TravelDomain.schema()
            let marked = Person(name: "Marker-Q7X2-Person")
            let others = (0..<20).map { Person(name: "P\($0)") }
            let store = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
            try await store.repository(Person.self).insert(contentsOf: others + [marked])
            try await store.close()  // the last connection checkpoints the WAL into the file

            var bytes = try #require(FileManager.default.contents(atPath: path))
            let found = try #require(bytes.range(of: Data("Q7X2".utf8)), "the row's bytes are in the file")
            bytes[found.lowerBound] ^= 0x01  // "Q" becomes "P": valid UTF-8, a plausible wrong value
            try bytes.write(to: URL(fileURLWithPath: path))

            let damaged = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
            do {
                let person = try await damaged.repository(Person.self).fetch(marked.id)
                Issue.record("a damaged row was read back: \(String(describing: person?.name))")
            } catch let error as StrataError {
                #expect(error.code == .corruptStore, "\(error)")
                #expect(error.entity == "Person" && error.recordID == marked.id.recordID, "\(error)")
            }
            #expect(try await damaged.repository(Person.self).fetch(others[3].id)?.name == "P3")
            try await damaged.close()
        }
    }

    @Test func rowsWrittenBeforeChecksumsStillRead() async throws {
        try await withTemporaryPath { path in
            let schema = try TravelDomain.schema()
            let store = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
            let old = Person(name: "Written before checksums")
            try await store.repository(Person.self).insert(old)
            try await store.close()
            // The layout of a store from before: no checksum column, no checksum flag.
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                for entity in schema.entities {
                    try db.execute(sql: "ALTER TABLE \(quoted(entity.name)) DROP COLUMN strata_checksum")
                }
                try db.execute(sql: "DELETE FROM strata_meta WHERE key = 'strata.sqlite.checksums'")
            }
            try queue.close()

            let reopened = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
            #expect(try await reopened.repository(Person.self).fetch(old.id)?.name == old.name)
            let new = Person(name: "Written after")
            try await reopened.repository(Person.self).insert(new)
            #expect(try await reopened.repository(Person.self).count() == 2)
            try await reopened.close()
            let check = try DatabaseQueue(path: path)
            let sums = try await check.read { db in
                try Row.fetchAll(db, sql: "SELECT name, strata_checksum FROM Person ORDER BY name").map {
                    ($0["name"] as String, $0["strata_checksum"] as Int64?)
                }
            }
            #expect(sums.first { $0.0 == old.name }?.1 == nil, "the old row keeps no checksum")
            #expect(sums.first { $0.0 == new.name }?.1 != nil, "a new row has one")
            try check.close()
        }
    }
}
