import Foundation
import GRDB
import Strata
import StrataConformance
import Testing

@testable import StrataSQLite

private typealias Tag = StrataConformance.Tag

/// A path in a fresh temporary directory, removed afterwards.
func withTemporaryPath(_ body: (String) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-sqlite-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(directory.appendingPathComponent("store.sqlite").path)
}

func expectOpenFails(
    _ code: StrataError.Code, at path: String, schema: Schema? = nil, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let before = FileManager.default.contents(atPath: path)
    do {
        let backend = try await SQLiteBackend.open(path: path, schema: try schema ?? TravelDomain.schema())
        try await backend.close()
        Issue.record("expected \(code), the store opened", sourceLocation: sourceLocation)
    } catch let error as StrataError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
    #expect(
        FileManager.default.contents(atPath: path) == before, "the file must not change", sourceLocation: sourceLocation
    )
}

@Suite("SQLite: files")
struct SQLiteFileTests {
    @Test func aFileThatIsNotSQLite() async throws {
        try await withTemporaryPath { path in
            try Data("just some text, not a database".utf8).write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.notAStore, at: path)
        }
    }

    @Test func aDirectory() async throws {
        try await withTemporaryPath { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try await expectOpenFails(.notAStore, at: path)
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)
        }
    }

    @Test func anotherApplicationsDatabase() async throws {
        try await withTemporaryPath { path in
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(sql: "CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
            }
            try queue.close()
            try await expectOpenFails(.notAStore, at: path)
        }
    }

    @Test func aTruncatedStore() async throws {
        try await withTemporaryPath { path in
            let store = Store(backend: try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema()))
            try await store.repository(Person.self).insert(
                contentsOf: (0..<300).map { Person(name: "P\($0)", age: $0 % 100) })
            try await store.close()
            let full = try #require(FileManager.default.contents(atPath: path))
            let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
            #expect(walSize == 0, "closing checkpoints the WAL into the file")
            try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: path))
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
            try await expectOpenFails(.corruptStore, at: path)
        }
    }

    @Test func aCorruptStore() async throws {
        try await withTemporaryPath { path in
            let backend = try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema())
            try await backend.close()
            var bytes = try #require(FileManager.default.contents(atPath: path))
            // Keep the 100-byte header, scramble the schema page that follows it.
            for index in 100..<min(bytes.count, 4_096) { bytes[index] = UInt8(truncatingIfNeeded: index &* 31) }
            try bytes.write(to: URL(fileURLWithPath: path))
            try? FileManager.default.removeItem(atPath: path + "-wal")
            try? FileManager.default.removeItem(atPath: path + "-shm")
            let before = FileManager.default.contents(atPath: path)
            do {
                let reopened = try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema())
                _ = try await Store(backend: reopened).repository(Person.self).count()
                Issue.record("a corrupt store opened and answered")
            } catch let error as StrataError {
                #expect(error.code == .corruptStore || error.code == .notAStore, "\(error)")
            }
            #expect(FileManager.default.contents(atPath: path) == before)
        }
    }

    @Test func aStoreWrittenWithAnotherSchema() async throws {
        try await withTemporaryPath { path in
            let store = Store(backend: try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema()))
            try await store.repository(Tag.self).insert(Tag(id: "kept", label: "Kept"))
            try await store.close()
            let other = try Schema(entities: [
                EntityDescription(
                    name: "Tag", idKind: .string, attributes: [AttributeDescription(name: "title", type: .string)])
            ])
            try await expectOpenFails(.incompatibleStore, at: path, schema: other)
            let reopened = Store(backend: try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema()))
            #expect(try await reopened.repository(Tag.self).fetch("kept")?.label == "Kept")
            try await reopened.close()
        }
    }

    @Test func aLocationThatCannotBeWritten() async throws {
        // /proc refuses new files even to root, unlike a chmod'ed directory.
        do {
            _ = try await SQLiteBackend.open(
                path: "/proc/strata-\(UUID().uuidString).sqlite", schema: try TravelDomain.schema())
            Issue.record("expected the open to fail")
        } catch let error as StrataError {
            #expect(error.code == .storageFailure)
        }
    }

    @Test func aMissingPathIsATypedError() async throws {
        do {
            _ = try await SQLiteBackend.open(path: "", schema: try TravelDomain.schema())
            Issue.record("expected the open to fail")
        } catch let error as StrataError {
            #expect(error.code == .unsupportedStore)
        }
    }

    @Test func theURLSchemesOpen() async throws {
        let registry = BackendRegistry()
        SQLiteBackend.register(in: registry)
        let memory = try await Store.open(
            "sqlite::memory:", schema: try TravelDomain.schema(), options: OpenOptions(registry: registry))
        try await memory.repository(Tag.self).insert(Tag(id: "m", label: "M"))
        #expect(try await memory.repository(Tag.self).count() == 1)
        try await withTemporaryPath { path in
            let store = try await Store.open(
                "sqlite:\(path)", schema: try TravelDomain.schema(), options: OpenOptions(registry: registry))
            try await store.repository(Tag.self).insert(Tag(id: "f", label: "F"))
            try await store.close()
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func synchronousFullIsApplied() async throws {
        try await withTemporaryPath { path in
            let full = try await SQLiteBackend.open(
                path: path, schema: try TravelDomain.schema(), options: .init(synchronous: .full))
            let level = try await full.read { tx in
                try Int.fetchOne((tx as! SQLiteReadTransaction).db, sql: "PRAGMA synchronous")
            }
            #expect(level == 2)
            try await full.close()
            let normal = try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema())
            let defaultLevel = try await normal.read { tx in
                try Int.fetchOne((tx as! SQLiteReadTransaction).db, sql: "PRAGMA synchronous")
            }
            #expect(defaultLevel == 1)
            let journal = try await normal.read { tx in
                try String.fetchOne((tx as! SQLiteReadTransaction).db, sql: "PRAGMA journal_mode")
            }
            #expect(journal == "wal")
            try await normal.close()
        }
    }
}
