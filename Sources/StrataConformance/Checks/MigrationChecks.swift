import Foundation
import Strata

/// Schema evolution. A store keeps the shape of the schema it was written with; opening it with
/// the same shape changes nothing, and opening it with another names every difference and
/// leaves the store as it was.
enum MigrationChecks {
    /// The fixture schema with `change` applied to one entity.
    static func schema(changing entity: String, _ change: (inout EntityDescription) -> Void) throws -> Schema {
        var entities = try TravelDomain.schema().entities
        guard let index = entities.firstIndex(where: { $0.name == entity }) else {
            throw StrataError(.unknownEntity, entity: entity, "not in the fixture schema")
        }
        change(&entities[index])
        return try Schema(entities: entities)
    }

    /// Opening `store` with `schema` fails naming `entity` and `property` and saying `said`; the
    /// store reopened with its own schema holds exactly what it held.
    static func expectRefused(
        _ c: ConformanceContext, _ store: Store, with schema: Schema, entity: String, property: String?,
        saying said: String,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) async throws -> Store {
        let before = try await StoreSnapshot.take(store)
        let original = store.schema
        let error = try await expectError(
            .incompatibleStore, entity: entity, property: property, fileID: fileID, filePath: filePath, line: line
        ) {
            _ = try await c.reopen(store, with: schema)
        }
        try expect(
            error.message.contains(said), "the error says \"\(said)\": \(error)", fileID: fileID, filePath: filePath,
            line: line)
        let reopened = try await c.reopen(store, with: original)
        try expectEqual(
            try await StoreSnapshot.take(reopened), before, "the store is untouched", fileID: fileID,
            filePath: filePath, line: line)
        return reopened
    }

    static let all: [ConformanceCheck] = [
        ConformanceCheck(.migration, "openingWithTheSameSchemaChangesNothing", requires: [.reopenWithAnotherSchema]) {
            c in
            let (store, _) = try await c.seeded()
            let before = try await StoreSnapshot.take(store)
            let reopened = try await c.reopen(store, with: try TravelDomain.schema())
            try expectEqual(try await StoreSnapshot.take(reopened), before, "same records, same history token")
            try expectEqual(try await reopened.history(after: before.historyToken).count, 0, "no history written")
        },
        ConformanceCheck(.migration, "anAddedAttributeIsNamed", requires: [.reopenWithAnotherSchema]) { c in
            let (store, _) = try await c.seeded()
            let changed = try schema(changing: "Tag") {
                $0.attributes.append(AttributeDescription(name: "pinned", type: .bool, defaultValue: .bool(false)))
            }
            _ = try await expectRefused(
                c, store, with: changed, entity: "Tag", property: "pinned",
                saying: "Tag: attribute `pinned` added (bool)")
        },
        ConformanceCheck(
            .migration, "anIndexAddedToAnAttributeIsNamedNotAnsweredFromAnEmptyIndex",
            requires: [.reopenWithAnotherSchema]
        ) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "name" }) {
                    entity.attributes[index].isIndexed = true
                }
            }
            let reopened = try await expectRefused(
                c, store, with: changed, entity: "Stop", property: "name", saying: "Stop: index on `name` added")
            try expectEqual(
                try await reopened.repository(Stop.self).fetch(where: \.name == data.alfama.name).map(\.id),
                [data.alfama.id])
        },
        ConformanceCheck(
            .migration, "aRemovedAttributeAndATypeChangeAreBothNamed", requires: [.reopenWithAnotherSchema]
        ) { c in
            let (store, _) = try await c.seeded()
            let changed = try schema(changing: "Stop") { entity in
                entity.attributes.removeAll { $0.name == "city" }
                entity.indexes.removeAll { $0.contains("city") }
                if let index = entity.attributes.firstIndex(where: { $0.name == "nights" }) {
                    entity.attributes[index].type = .double
                }
            }
            let reopened = try await expectRefused(
                c, store, with: changed, entity: "Stop", property: "nights",
                saying: "Stop: attribute `nights` type int → double")
            _ = reopened
            let error = try await expectError(.incompatibleStore) { _ = try await c.reopen(reopened, with: changed) }
            try expect(error.message.contains("Stop: attribute `city` removed"), "every difference is named: \(error)")
        },
        ConformanceCheck(
            .migration, "optionalityAndUniqueConstraintChangesAreNamed", requires: [.reopenWithAnotherSchema]
        ) { c in
            let (store, _) = try await c.seeded()
            let changed = try schema(changing: "Person") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "age" }) {
                    entity.attributes[index].isOptional = false
                }
                entity.uniqueConstraints.append(["name"])
            }
            let reopened = try await expectRefused(
                c, store, with: changed, entity: "Person", property: "age",
                saying: "Person: attribute `age` optional → required")
            let error = try await expectError(.incompatibleStore) { _ = try await c.reopen(reopened, with: changed) }
            try expect(
                error.message.contains("Person: unique constraint (name) added"), "every difference is named: \(error)")
        },
    ]
}
