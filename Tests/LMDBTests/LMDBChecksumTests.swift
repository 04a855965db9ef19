import Foundation
import Strata
import StrataConformance
import Testing

@testable import StrataLMDB

/// A byte flipped inside a stored record — LMDB keeps no checksums of its own — is found by the
/// record's checksum when it is read: `corruptStore` naming the entity and ID, not a wrong value.
@Suite("LMDB: record checksums")
struct LMDBChecksumTests {
    @Test func aFlippedByteInARecordIsCorruptStoreNamingIt() async throws {
        try await withTemporaryDirectory { path in
            let schema = try TravelDomain.schema()
            let marked = Person(name: "Marker-Q7X2-Person")
            let store = Store(backend: try await LMDBBackend.open(path: path, schema: schema))
            let others = (0..<20).map { Person(name: "P\($0)") }
            try await store.repository(Person.self).insert(contentsOf: others + [marked])
            try await store.close()

            let data = path + "/data.mdb"
            var bytes = try #require(FileManager.default.contents(atPath: data))
            let needle = Data("Q7X2".utf8)
            let found = try #require(bytes.range(of: needle), "the record's bytes are in the file")
            bytes[found.lowerBound] ^= 0x01  // "Q" becomes "P": still valid UTF-8, a plausible wrong value
            try bytes.write(to: URL(fileURLWithPath: data))

            let damaged = Store(backend: try await LMDBBackend.open(path: path, schema: schema))
            do {
                let person = try await damaged.repository(Person.self).fetch(marked.id)
                Issue.record("a damaged record was read back: \(String(describing: person?.name))")
            } catch let error as StrataError {
                #expect(error.code == .corruptStore, "\(error)")
                #expect(error.entity == "Person" && error.recordID == marked.id.recordID, "\(error)")
            }
            // The undamaged records still read by ID; a scan that meets the damaged one reports it.
            #expect(try await damaged.repository(Person.self).fetch(others[3].id)?.name == "P3")
            await #expect(throws: StrataError.self) {
                try await damaged.repository(Person.self).fetch(where: \.name == "P3")
            }
            // The batched lookup by IDs (cascades, a save's reads) reports it too, never leaving it
            // out of its answer as if the record did not exist.
            let ids = [others[0].id.recordID, marked.id.recordID, others[1].id.recordID]
            do {
                let found = try await damaged.backend.read { try $0.records("Person", ids: ids) }
                Issue.record(
                    "the batched lookup answered \(found.count) of 3 records without reporting the damaged one")
            } catch let error as StrataError {
                #expect(error.code == .corruptStore, "\(error)")
                #expect(error.entity == "Person" && error.recordID == marked.id.recordID, "\(error)")
            }
            try await damaged.close()
        }
    }
}
