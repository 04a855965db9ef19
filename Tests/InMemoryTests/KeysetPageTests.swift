import Foundation
import Strata
import Testing

@testable import StrataInMemory

/// A keyset page (`id > last`, ID order) of the in-memory tables — and so of the JSON file
/// backend — is a seek and a walk of one page in the table's ID set, whatever the table's size:
/// the walk's length is asserted, not its time.
struct KeysetPageTests {
    @Test(arguments: [RecordID.Kind.int, .uuid, .string])
    func aKeysetPageWalksOnePage(_ kind: RecordID.Kind) async throws {
        let schema = try Schema(entities: [
            EntityDescription(name: "Item", idKind: kind, attributes: [AttributeDescription(name: "n", type: .int)])
        ])
        let backend = InMemoryBackend(schema: schema)
        let store = Store(backend: backend)
        @Sendable func id(_ n: Int) -> RecordID {
            switch kind {
            case .int: .int(Int64(n) - 10_000)
            case .string: .string(String(format: "k%06d", n))
            case .uuid: .uuid(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", n))!)
            }
        }
        let count = 30_000
        for start in stride(from: 0, to: count, by: 5_000) {
            try await store.transaction { tx in
                for n in (start..<(start + 5_000)).reversed() {
                    try tx.insert(Record(entity: "Item", id: id(n), values: ["n": .int(Int64(n))]))
                }
            }
        }
        try await store.transaction { tx in
            for n in stride(from: 1, to: 200, by: 2) { try tx.delete("Item", id: id(n)) }
        }
        let (first, keyset, descending) = try await backend.read { transaction -> ([Int], [Int], [Int]) in
            guard let reading = transaction as? any InMemoryReading else { return ([], [], []) }
            let table = try reading.table("Item")
            let first = try reading.idWalk(FetchPlan(entity: "Item", limit: 50), table)
            let keyset = try reading.idWalk(
                FetchPlan(entity: "Item", predicate: .compare("id", .greater, id(20_000).value, []), limit: 100), table)
            let descending = try reading.idWalk(
                FetchPlan(
                    entity: "Item", predicate: .compare("id", .less, id(20_000).value, []),
                    sort: [SortKey("id", ascending: false)], limit: 10), table)
            #expect(first?.walked == 50)
            #expect(keyset?.walked == 101, "the bound itself, then one page")
            #expect(descending?.walked == 11)
            #expect(
                try reading.idWalk(
                    FetchPlan(entity: "Item", predicate: .compare("n", .greater, .int(5), []), limit: 10), table)
                    == nil,
                "a filter on anything but the ID is not a keyset page")
            func numbers(_ records: [Record]?) -> [Int] {
                (records ?? []).compactMap { if case .int(let n) = $0["n"] { Int(n) } else { nil } }
            }
            return (numbers(first?.page), numbers(keyset?.page), numbers(descending?.page))
        }
        #expect(
            first == Array(0..<100).filter { $0 % 2 == 0 || $0 >= 200 }.prefix(50).map { $0 },
            "deleted IDs are gone from the walk")
        #expect(keyset == Array(20_001...20_100))
        #expect(descending == Array((19_990..<20_000).reversed()))
        // And the engine's page agrees with the walk.
        let page = try await store.read { try $0.page("Item", after: id(20_000), limit: 100) }
        #expect(page.map(\.record.id) == (20_001...20_100).map(id))
    }
}
