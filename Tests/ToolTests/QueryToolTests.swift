import Foundation
import Strata
import StrataConformance
import StrataTools
import Testing

/// `strata query` on every persistent backend: the text filter finds what the typed query finds.
@Suite("strata query")
struct QueryToolTests {
    @Test(arguments: ["sqlite", "lmdb", "json", "postgres"])
    func aTextFilterFindsWhatTheTypedQueryFinds(_ kind: String) async throws {
        let tests = try ToolTests()
        guard let (url, data) = try await tests.seededStore(kind) else { return }
        let result = try Tool.run(
            [
                "query", url, "Trip", "--where", #"budget > 500 && traveller.name == "Ana""#, "--sort=-start",
                "--ndjson",
            ], in: tests.directory)
        #expect(result.status == 0, "\(result.errors)")
        let schema = try TravelDomain.schema()
        let ids = try result.output.split(separator: "\n").map { try RecordJSON.parse($0, schema: schema).record.id }
        let store = try await Store.open(url, schema: schema)
        let expected = try await store.repository(Trip.self).fetch(
            Query<Trip>.where(\.budget > 500 && .related(\Trip.traveller, where: \Person.name == "Ana")).sorted(
                by: \.start, .descending))
        try await store.close()
        #expect(ids == expected.map { RecordID.uuid($0.id) })
        #expect(ids.count == 2 && ids.first == .uuid(data.portoWine.id))
        let table = try Tool.run(["query", url, "Person", "--where", "age >= 30", "--limit", "2"], in: tests.directory)
        #expect(table.output.contains("(2 records)"), "\(table.output)")
        let wrong = try Tool.run(["query", url, "Trip", "--where", "budget >> 5"], in: tests.directory)
        #expect(wrong.status == 64 && wrong.errors.contains("column 9"), "\(wrong.errors)")
    }
}
