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
        let result = try await Tool.run(
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
        let table = try await Tool.run(
            ["query", url, "Person", "--where", "age >= 30", "--limit", "2"], in: tests.directory)
        #expect(table.output.contains("(2 records)"), "\(table.output)")
        let wrong = try await Tool.run(["query", url, "Trip", "--where", "budget >> 5"], in: tests.directory)
        #expect(wrong.status == 64 && wrong.errors.contains("column 9"), "\(wrong.errors)")
    }
}

/// `strata query --search` and `strata verify` on a store with a full-text index.
@Suite("strata query --search")
struct SearchToolTests {
    static func schema() throws -> Schema {
        try Schema(entities: [
            EntityDescription(
                name: "Note", idKind: .string,
                attributes: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "body", type: .string),
                ],
                searchIndexes: [
                    SearchIndexDescription(name: "text", fields: [.init("title", weight: 2), .init("body")])
                ])
        ])
    }

    @Test(arguments: ["sqlite", "lmdb", "json"])
    func aSearchIsRankedByRelevanceAndVerified(_ kind: String) async throws {
        let tests = try ToolTests()
        let url = "\(kind):\(tests.directory)/notes.\(kind)"
        let store = try await Store.open(url, schema: try Self.schema())
        try await store.transaction { tx in
            for (id, title, body) in [
                ("a", "Swift", "A language"), ("b", "Notes", "Swift swift swift on the server"),
                ("c", "Rust", "Nothing about it"), ("d", "Swift server", "Swift on Linux today"),
            ] {
                try tx.insert(
                    Record(entity: "Note", id: .string(id), values: ["title": .string(title), "body": .string(body)]))
            }
        }
        try await store.close()
        let ranked = try await Tool.run(["query", url, "Note", "--search", "swift", "--ndjson"], in: tests.directory)
        #expect(ranked.status == 0, "\(ranked.errors)")
        let ids = try ranked.output.split(separator: "\n").map {
            try RecordJSON.parse($0, schema: try Self.schema()).record.id
        }
        #expect(ids == [.string("a"), .string("b"), .string("d")], "\(ranked.output)")
        let narrowed = try await Tool.run(
            ["query", url, "Note", "--search", "swift", "--where", #"title == "Notes""#], in: tests.directory)
        #expect(narrowed.output.contains("(1 record)"), "\(narrowed.output)")
        let bad = try await Tool.run(["query", url, "Note", "--search", "\"open"], in: tests.directory)
        #expect(bad.status == 64 && bad.errors.contains("quote"), "\(bad.errors)")
        let noIndex = try await Tool.run(
            ["query", url, "Note", "--search", "x", "--index", "nope"], in: tests.directory)
        #expect(noIndex.status == 64 && noIndex.errors.contains("nope"), "\(noIndex.errors)")
        let sound = try await Tool.run(["verify", url], in: tests.directory)
        #expect(sound.status == 0 && sound.output.contains("full-text index"), "\(sound.output)\(sound.errors)")
        // A copy and an import build the index through their saves: the same ranking, verified sound.
        let copy = "sqlite:\(tests.directory)/copy-of-\(kind).sqlite"
        let copied = try await Tool.run(["copy", url, copy], in: tests.directory)
        #expect(copied.status == 0, "\(copied.output)\(copied.errors)")
        let file = "\(tests.directory)/notes-\(kind).ndjson"
        let exported = try await Tool.run(["export", url, "--output", file], in: tests.directory)
        #expect(exported.status == 0, "\(exported.errors)")
        let loaded = "lmdb:\(tests.directory)/imported-from-\(kind).lmdb"
        let imported = try await Tool.run(["import", loaded, "--input", file], in: tests.directory)
        #expect(imported.status == 0, "\(imported.output)\(imported.errors)")
        for target in [copy, loaded] {
            let again = try await Tool.run(
                ["query", target, "Note", "--search", "swift", "--ndjson"], in: tests.directory)
            let found = try again.output.split(separator: "\n").map {
                try RecordJSON.parse($0, schema: try Self.schema()).record.id
            }
            #expect(found == ids, "\(target): \(again.output)\(again.errors)")
            let verified = try await Tool.run(["verify", target], in: tests.directory)
            #expect(verified.status == 0, "\(target): \(verified.output)\(verified.errors)")
        }
    }
}
