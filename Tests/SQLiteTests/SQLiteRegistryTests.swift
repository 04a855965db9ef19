import Foundation
import Strata
import StrataConformance
import StrataInMemory
import StrataSQLite
import Testing

/// What a backend registers beside its opener: SQLite its file check, found by scheme (what
/// `strata verify` runs, with no switch over schemes); a backend without files none.
@Suite("SQLite: registration")
struct SQLiteRegistryTests {
    @Test func theFileCheckIsFoundByScheme() async throws {
        let registry = BackendRegistry()
        SQLiteBackend.register(in: registry)
        InMemoryBackend.register(in: registry)
        #expect(registry.verifies("sqlite") && registry.verifies("SQLITE"))
        #expect(!registry.verifies("memory"), "a memory store has no files")
        try await withTemporaryPath { path in
            let schema = try TravelDomain.schema()
            let store = try await Store.open("sqlite:\(path)", schema: schema, options: OpenOptions(registry: registry))
            try await store.repository(Tag.self).insert(Tag(id: "beach", label: "Beach"))
            try await store.close()
            let report = try #require(try await registry.verify(StoreLocation("sqlite:\(path)"), schema: schema))
            #expect(report.isSound, "\(report)")
            #expect(report.recordsChecked["Tag"] == 1, "\(report.recordsChecked)")
            #expect(try await registry.verify(StoreLocation("memory:"), schema: schema) == nil)
        }
    }
}
