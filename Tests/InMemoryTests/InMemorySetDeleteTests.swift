import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// A set delete drops an index key whose IDs all go and trims one that keeps some; queries and
/// ranges over the index must then agree with the records that remain.
@Suite("In-memory: set deletes")
struct InMemorySetDeleteTests {
    @Test func indexesAgreeWithTheRecordsAfterASetDelete() async throws {
        let backend = InMemoryBackend(schema: try TravelDomain.schema())
        let store = Store(backend: backend)
        let samples = (0..<60).map { Sample(id: "s\($0)", count: $0 % 3) }
        try await store.repository(Sample.self).insert(contentsOf: samples)
        // Every sample with count 0 (a whole key), and two of those with count 1 (part of a key).
        let gone = samples.filter { $0.count == 0 }.map(\.id) + ["s1", "s4"]
        try await backend.write { tx in try tx.delete("Sample", ids: gone.map(RecordID.string)) }
        let repository = store.repository(Sample.self)
        #expect(try await repository.fetch(where: \Sample.count == 0).isEmpty)
        #expect(try await repository.fetch(where: \Sample.count == 1).count == 18)
        #expect(try await repository.fetch(where: \Sample.count == 2).count == 20)
        #expect(try await repository.count(where: \Sample.count < 2) == 18)
        #expect(try await repository.fetch(Query<Sample>.all.sorted(by: \Sample.count).limit(5)).map(\.count) == [1, 1, 1, 1, 1])
        #expect(try await repository.count() == 38)
        // Inserting under a dropped key works as under a new one.
        try await repository.insert(Sample(id: "again", count: 0))
        #expect(try await repository.fetch(where: \Sample.count == 0).map(\.id) == ["again"])
    }
}
