import Foundation
import Strata

/// Collections in a lightweight migration: one added with a default fills every record, one renamed
/// keeps its values and its element index, one dropped is gone, one newly indexed answers for the
/// records stored before — and the indexes keep up with saves after the migration.
extension MigrationChecks {
    static let collections: [ConformanceCheck] = [
        ConformanceCheck(.migration, "collectionsAreAddedRenamedDroppedAndReindexed", requires: [.migrate]) { c in
            let (store, _) = try await c.seeded()
            try await store.repository(Sample.self).insert(contentsOf: [
                Sample(id: "s1", tags: ["a", "b"], scores: [1, 2], labels: ["x"]),
                Sample(id: "s2", tags: ["b"], scores: [2]), Sample(id: "s3"),
            ])
            var entities = try TravelDomain.schema().entities
            let sample = try expectNotNil(entities.firstIndex { $0.name == "Sample" })
            var attributes = entities[sample].attributes.filter { $0.name != "labels" }
            for index in attributes.indices {
                if attributes[index].name == "tags" {
                    attributes[index].name = "topics"
                    attributes[index].renamedFrom = "tags"
                }
                if attributes[index].name == "scores" { attributes[index].isIndexed = true }
            }
            attributes.append(
                AttributeDescription(
                    name: "keywords", type: .array, defaultValue: .array(["new"]), isIndexed: true, element: .string))
            entities[sample].attributes = attributes
            let changed = try Schema(entities: entities)
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Tag"])
            func owners(_ property: String, _ value: Value) async throws -> Set<RecordID> {
                Set(
                    try await migrated.read {
                        try $0.fetch(FetchPlan(entity: "Sample", predicate: .elements(property, .contains(value))))
                    }.map(\.id))
            }
            try expectEqual(try await owners("topics", "a"), [.string("s1")], "renamed: its values and index moved")
            try expectEqual(try await owners("topics", "b"), [.string("s1"), .string("s2")])
            try expectEqual(try await owners("scores", .double(2)), [.string("s1"), .string("s2")], "newly indexed")
            try expectEqual(
                try await owners("keywords", "new"), [.string("s1"), .string("s2"), .string("s3")], "added")
            let records = try await records(migrated, "Sample")
            try expectEqual(records[.string("s1")]?["labels"], .null, "dropped")
            try await migrated.transaction { tx in
                try tx.insert(Record(entity: "Sample", id: .string("s4"), values: ["topics": .array(["a"])]))
                try tx.update("Sample", id: .string("s1"), set: ["topics": .array(["c"])])
            }
            try expectEqual(try await owners("topics", "a"), [.string("s4")], "the index follows later saves")
            try expectEqual(try await owners("topics", "c"), [.string("s1")])
        }
    ]
}
