import Foundation
import Strata
import StrataConformance
import StrataSQLite
import Testing

private typealias Tag = StrataConformance.Tag

/// A closed SQLite store is one self-contained file: `close()` empties the write-ahead log into
/// the database, so copying the main file alone copies every record.
@Suite("SQLite: closing")
struct SQLiteCloseTests {
    @Test func aClosedStoreIsOneFileWithEveryRecord() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-close-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
        let store = Store(backend: try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema()))
        for batch in 0..<20 {
            try await store.repository(Tag.self).insert(
                contentsOf: (0..<50).map { Tag(id: "t\(batch)-\($0)", label: "L\(batch)-\($0)") })
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "an open store writes through its log")
        try await store.close()
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(log == 0, "the log is empty or gone after close (\(log) bytes)")
        let copy = directory + "/copy.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let copied = Store(backend: try await SQLiteBackend.open(path: copy, schema: try TravelDomain.schema()))
        #expect(try await copied.repository(Tag.self).count() == 1_000)
        try await copied.close()
    }
}
