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

    /// A row without a checksum is damage: every row of a store of format 1 has one.
    @Test func aRowWithoutAChecksumIsDamage() async throws {
        try await withTemporaryPath { path in
            let schema = try TravelDomain.schema()
            let store = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
            let person = Person(name: "Ana")
            try await store.repository(Person.self).insert(person)
            try await store.close()
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in try db.execute(sql: "UPDATE Person SET strata_checksum = NULL") }
            try queue.close()
            let reopened = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
            let error = try await #require(throws: StrataError.self) {
                try await reopened.repository(Person.self).fetch(person.id)
            }
            #expect(error.code == .corruptStore && error.entity == "Person", "\(error)")
            try await reopened.close()
        }
    }

    /// A store of another format than 1 is refused, naming it, and left as it was.
    @Test func aStoreOfAnotherFormatIsRefusedNamingIt() async throws {
        try await withTemporaryPath { path in
            let schema = try TravelDomain.schema()
            try await SQLiteBackend.open(path: path, schema: schema).close()
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(
                    sql: "UPDATE strata_meta SET value = CAST('2' AS BLOB) WHERE key = 'strata.sqlite.format'")
            }
            try queue.close()
            try await expectOpenFails(.incompatibleStore, at: path)
            do {
                _ = try await SQLiteBackend.open(path: path, schema: schema)
            } catch let error as StrataError {
                #expect(error.message.contains("format 2"), "\(error)")
            }
        }
    }
}
