import Foundation
import Strata
import StrataConformance
import Testing

@testable import StrataLMDB

/// A data file cut short — a disk that filled, a copy that stopped — would be a SIGBUS the moment
/// LMDB touched a page past its end. It must be a typed error at open, with the file untouched.
/// Seeded: `STRATA_LMDB_TRUNCATIONS` sets the number of trials (default 40), and a failure names
/// the seed and the length.
@Suite("LMDB: truncated data files")
struct LMDBTruncationTests {
    @Test func aTruncatedDataFileIsATypedErrorNeverACrash() async throws {
        let trials = Int(ProcessInfo.processInfo.environment["STRATA_LMDB_TRUNCATIONS"] ?? "") ?? 40
        let seed = UInt64(ProcessInfo.processInfo.environment["STRATA_LMDB_TRUNCATION_SEED"] ?? "") ?? 0x5EED
        var random = SeededRandom(seed: seed)
        try await withTemporaryDirectory { path in
            let store = Store(backend: try await LMDBBackend.open(path: path, schema: try TravelDomain.schema()))
            try await store.repository(Person.self).insert(
                contentsOf: (0..<2_000).map { Person(name: "Person \($0)", age: $0 % 90) })
            try await store.close()
            let data = path + "/data.mdb"
            let whole = try #require(FileManager.default.contents(atPath: data))
            #expect(whole.count > 16 * 4_096, "enough pages to cut anywhere")

            // Short of the two meta pages, at a page boundary, and anywhere.
            var lengths = [1, 100, 4_095, 4_096, 8_191, 8_192, whole.count - 4_096, whole.count - 1]
            for _ in 0..<trials { lengths.append(random.below(whole.count - 1) + 1) }
            for length in lengths {
                try whole.prefix(length).write(to: URL(fileURLWithPath: data))
                let before = FileManager.default.contents(atPath: data)
                do {
                    let backend = try await LMDBBackend.open(path: path, schema: try TravelDomain.schema())
                    try await backend.close()
                    Issue.record("seed \(seed), length \(length) of \(whole.count): a truncated store opened")
                } catch let error as StrataError {
                    #expect(
                        [.corruptStore, .notAStore].contains(error.code), "seed \(seed), length \(length): \(error)")
                }
                #expect(
                    FileManager.default.contents(atPath: data) == before,
                    "seed \(seed), length \(length): the file must not change")
                try? FileManager.default.removeItem(atPath: path + "/lock.mdb")
            }
            // The whole file still opens, with every record.
            try whole.write(to: URL(fileURLWithPath: data))
            let reopened = Store(backend: try await LMDBBackend.open(path: path, schema: try TravelDomain.schema()))
            #expect(try await reopened.repository(Person.self).count() == 2_000)
            try await reopened.close()
        }
    }
}
