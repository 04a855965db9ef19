import Foundation
import Strata

/// Each inferred step, run: what the records hold afterwards, and what they no longer hold.
extension MigrationChecks {
    /// A plan whose version 1 is the fixture schema and version 2 is `changed`.
    static func plan(to changed: Schema, stages: [MigrationStage] = [], outbox: MigrationPlan.OutboxPolicy = .migrate)
        throws -> MigrationPlan
    {
        MigrationPlan(
            versions: [SchemaVersion("1", try TravelDomain.schema()), SchemaVersion("2", changed)], stages: stages,
            outbox: outbox)
    }

    /// Every record of `entity`, untyped, by ID.
    static func records(_ store: Store, _ entity: String) async throws -> [RecordID: Record] {
        let records = try await store.read { try $0.fetch(FetchPlan(entity: entity)) }
        return Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The IDs of `entity`'s records where `property` equals `value` (an equality query).
    static func ids(_ store: Store, _ entity: String, where property: String, is value: Value) async throws
        -> [RecordID]
    {
        try await store.read {
            try $0.fetch(FetchPlan(entity: entity, predicate: .compare(property, .equal, value, []))).map(\.id)
        }
    }

    /// Migrates `store` to `changed` with a two-version plan, checking what every migration
    /// promises: entities the change does not touch are as they were (records and versions), and
    /// the history gained exactly one entry, by `strata.migration`.
    static func migrated(
        _ c: ConformanceContext, _ store: Store, to changed: Schema, stages: [MigrationStage] = [], untouched: [String],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) async throws -> Store {
        var before: [String: [RecordID: Record]] = [:]
        for entity in untouched { before[entity] = try await records(store, entity) }
        let token = try await store.currentHistoryToken()
        let migrated = try await c.migrate(store, to: changed, plan: try plan(to: changed, stages: stages))
        for entity in untouched {
            try expectEqual(
                try await records(migrated, entity), before[entity], "\(entity) is untouched", fileID: fileID,
                filePath: filePath, line: line)
        }
        let entries = try await migrated.history(after: token)
        try expectEqual(
            entries.map(\.author), [MigrationPlan.historyAuthor], "one history entry records the migration",
            fileID: fileID, filePath: filePath, line: line)
        try expect(
            entries.first?.contextName?.contains("1 → 2") == true,
            "the entry names the versions: \(String(describing: entries.first?.contextName))", fileID: fileID,
            filePath: filePath, line: line)
        return migrated
    }

    /// `body` (a migration of `store`) fails with `code` naming `entity` and `property`, and the
    /// store reopened with the fixture schema holds exactly what it held.
    @discardableResult
    static func expectMigrationRefused(
        _ c: ConformanceContext, _ store: Store, _ code: StrataError.Code, entity: String? = nil,
        property: String? = nil,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        _ body: () async throws -> Void
    ) async throws -> (StrataError, Store) {
        let before = try await StoreSnapshot.take(store)
        let error = try await expectError(
            code, entity: entity, property: property, fileID: fileID, filePath: filePath, line: line, body)
        let reopened = try await c.migrate(store, to: try TravelDomain.schema(), plan: nil)
        let after = try await StoreSnapshot.take(reopened)
        if before != after {
            throw ConformanceFailure(
                "the failed migration changed the store: \(before.difference(from: after))", fileID: fileID,
                filePath: filePath, line: line)
        }
        return (error, reopened)
    }

    static let steps: [ConformanceCheck] = [
        ConformanceCheck(.migration, "anAddedAttributeGetsItsDefaultAndKeepsVersions", requires: [.migrate]) { c in
            let (store, _) = try await c.seeded()
            let tags = try await records(store, "Tag")
            let changed = try schema(changing: "Tag") {
                $0.attributes.append(AttributeDescription(name: "pinned", type: .bool, defaultValue: .bool(false)))
            }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip", "Person", "Stop"])
            let after = try await records(migrated, "Tag")
            try expectEqual(Set(after.keys), Set(tags.keys))
            for (id, tag) in after {
                try expectEqual(tag["pinned"], .bool(false), "\(id) gets the default")
                try expectEqual(tag["label"], tags[id]?["label"], "\(id) keeps its label")
                try expectEqual(tag.version, tags[id]?.version, "\(id) keeps its version")
            }
        },
        ConformanceCheck(.migration, "anAddedOptionalAttributeIsNil", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") {
                $0.attributes.append(AttributeDescription(name: "note", type: .string, isOptional: true))
            }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip", "Tag"])
            let stops = try await records(migrated, "Stop")
            try expectEqual(stops.count, data.stops.count)
            try expect(
                stops.values.allSatisfy { $0["note"].isNull && !$0["name"].isNull },
                "no stop has a note; every stop keeps its name")
        },
        ConformanceCheck(.migration, "aRemovedAttributeIsGoneAndTheRestStays", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { entity in
                entity.attributes.removeAll { $0.name == "city" }
                entity.indexes.removeAll { $0.contains("city") }
            }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip"])
            let stops = try await records(migrated, "Stop")
            try expectEqual(
                stops[data.alfama.id.recordID]?.value(named: "city"), nil, "city is not part of the record any more")
            try expectEqual(stops[data.alfama.id.recordID]?["name"], .string(data.alfama.name))
            try expectEqual(
                try await ids(migrated, "Stop", where: "name", is: .string(data.sintra.name)), [data.sintra.id.recordID]
            )
        },
        ConformanceCheck(.migration, "aRenamedAttributeKeepsItsValuesAndAnswersQueries", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "name" }) {
                    entity.attributes[index].name = "title"
                    entity.attributes[index].renamedFrom = "name"
                }
            }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip"])
            let stops = try await records(migrated, "Stop")
            for stop in data.stops {
                try expectEqual(stops[stop.id.recordID]?["title"], .string(stop.name), "\(stop.name) is its title now")
            }
            try expectEqual(
                try await ids(migrated, "Stop", where: "title", is: .string(data.belem.name)), [data.belem.id.recordID])
        },
        ConformanceCheck(.migration, "aRenamedEntityKeepsRecordsVersionsAndRelationships", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let tags = try await records(store, "Tag")
            let tripTags = try await store.read {
                try $0.relatedRecords("Trip", "tags", owners: data.trips.map(\.id.recordID)).mapValues { $0.map(\.id) }
            }
            let interests = try await store.read {
                try $0.relatedRecords("Person", "interests", owners: data.people.map(\.id.recordID)).mapValues {
                    $0.map(\.id)
                }
            }
            let changed = try renaming("Tag", to: "Label")
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Stop"])
            let labels = try await records(migrated, "Label")
            try expectEqual(Set(labels.keys), Set(tags.keys))
            for (id, label) in labels {
                try expectEqual(label["label"], tags[id]?["label"])
                try expectEqual(label.version, tags[id]?.version)
            }
            try expectEqual(
                try await migrated.read {
                    try $0.relatedRecords("Trip", "tags", owners: data.trips.map(\.id.recordID)).mapValues {
                        $0.map(\.id)
                    }
                }, tripTags, "trips keep their labels")
            try expectEqual(
                try await migrated.read {
                    try $0.relatedRecords("Person", "interests", owners: data.people.map(\.id.recordID)).mapValues {
                        $0.map(\.id)
                    }
                }, interests, "interests keep their order")
            try expectEqual(
                try await ids(migrated, "Label", where: "label", is: .string("Food")), [RecordID.string("food")])
        },
        ConformanceCheck(.migration, "aRenamedEntityKeepsTheLinkListsThatPointToIt", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let owners = data.trips.map(\.id.recordID)
            let stops = try await store.read { try $0.relatedRecords("Trip", "stops", owners: owners) }
                .mapValues { $0.map(\.id) }
            try expect(stops.values.contains { $0.count >= 2 }, "a trip has several stops in order")
            let migrated = try await Self.migrated(
                c, store, to: try renaming("Stop", to: "Waypoint"), untouched: ["Tag"])
            try expectEqual(
                try await migrated.read { try $0.relatedRecords("Trip", "stops", owners: owners) }.mapValues {
                    $0.map(\.id)
                },
                stops, "every trip keeps its stops, renamed Waypoint, in their order")
            try expectEqual(Set(try await records(migrated, "Waypoint").keys), Set(stops.values.flatMap { $0 }))
        },
        ConformanceCheck(.migration, "anAddedEntityStartsEmpty", requires: [.migrate]) { c in
            let (store, _) = try await c.seeded()
            var entities = try TravelDomain.schema().entities
            entities.append(
                EntityDescription(name: "Review", attributes: [AttributeDescription(name: "text", type: .string)]))
            let migrated = try await Self.migrated(
                c, store, to: try Schema(entities: entities), untouched: ["Trip", "Stop", "Tag", "Person", "Agency"])
            try expectEqual(try await records(migrated, "Review").count, 0)
            try await migrated.transaction { tx in
                try tx.insert(Record(entity: "Review", id: .uuid(UUID()), values: ["text": .string("Lovely")]))
            }
            try expectEqual(try await records(migrated, "Review").count, 1, "the new entity takes records")
        },
        ConformanceCheck(.migration, "aRemovedEntityTakesItsRecordsAndTheRestStays", requires: [.migrate]) { c in
            let (store, _) = try await c.seeded()
            var entities = try TravelDomain.schema().entities
            entities.removeAll { $0.name == "Guide" }
            if let agency = entities.firstIndex(where: { $0.name == "Agency" }) {
                entities[agency].relationships.removeAll { $0.name == "guides" }
            }
            let migrated = try await Self.migrated(
                c, store, to: try Schema(entities: entities), untouched: ["Trip", "Stop", "Person"])
            try expect(migrated.schema.entity("Guide") == nil, "Guide is gone from the schema")
            let agencies = try await records(migrated, "Agency")
            try expectEqual(agencies.values.map { $0["name"] }, [.string("Sol Travel")])
        },
        ConformanceCheck(.migration, "anIndexAddedToAnAttributeAnswersForEveryStoredRecord", requires: [.migrate]) {
            c in
            // The LMDB case of the issue: an index added must hold the records already stored.
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "name" }) {
                    entity.attributes[index].isIndexed = true
                }
            }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip"])
            for stop in data.stops {
                try expectEqual(
                    try await ids(migrated, "Stop", where: "name", is: .string(stop.name)), [stop.id.recordID],
                    "\(stop.name) is found through the new index")
            }
            // Writes keep the built index: a renamed stop moves from one key to the other.
            try await migrated.transaction { tx in
                try tx.update("Stop", id: data.alfama.id.recordID, set: ["name": .string("Alfama Alta")])
            }
            try expectEqual(
                try await ids(migrated, "Stop", where: "name", is: .string(data.alfama.name)), [], "the old key is gone"
            )
            try expectEqual(
                try await ids(migrated, "Stop", where: "name", is: .string("Alfama Alta")), [data.alfama.id.recordID])
        },
        ConformanceCheck(.migration, "aRemovedIndexStillAnswersQueries", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { $0.indexes.removeAll() }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip"])
            let lisbon = data.stops.filter { $0.city == data.alfama.city }.map(\.id.recordID).sorted()
            try expectEqual(try await ids(migrated, "Stop", where: "city", is: .string(data.alfama.city)), lisbon)
        },
        ConformanceCheck(.migration, "optionalBecomesRequiredWithADefault", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Person") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "age" }) {
                    entity.attributes[index].isOptional = false
                    entity.attributes[index].defaultValue = .int(0)
                }
            }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip"])
            let people = try await records(migrated, "Person")
            for person in data.people {
                try expectEqual(
                    people[person.id.recordID]?["age"], person.age.map { .int(Int64($0)) } ?? .int(0),
                    "\(person.name): nil becomes the default")
            }
        },
        ConformanceCheck(
            .migration, "optionalBecomesRequiredWithoutADefaultNamesTheRecordsHoldingNil", requires: [.migrate]
        ) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Person") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "age" }) {
                    entity.attributes[index].isOptional = false
                }
            }
            let (error, _) = try await expectMigrationRefused(
                c, store, .missingValue, entity: "Person", property: "age"
            ) {
                _ = try await c.migrate(store, to: changed, plan: try plan(to: changed))
            }
            for person in data.people where person.age == nil {
                try expect(error.message.contains(person.id.recordID.description), "\(person.name) is listed: \(error)")
            }
        },
        ConformanceCheck(.migration, "requiredWithoutADefaultSucceedsWhenNoRecordHoldsNil", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let withAge = data.people.filter { $0.age != nil }
            for person in data.people where person.age == nil {
                try await store.repository(Person.self).delete(person.id)
            }
            let changed = try schema(changing: "Person") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "age" }) {
                    entity.attributes[index].isOptional = false
                }
            }
            let migrated = try await c.migrate(store, to: changed, plan: try plan(to: changed))
            try expectEqual(try await records(migrated, "Person").count, withAge.count)
        },
        ConformanceCheck(.migration, "requiredBecomesOptionalAndTakesNil", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "nights" }) {
                    entity.attributes[index].isOptional = true
                }
            }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip"])
            try expectEqual(
                try await records(migrated, "Stop")[data.alfama.id.recordID]?["nights"], .int(Int64(data.alfama.nights))
            )
            try await migrated.transaction { tx in
                try tx.update("Stop", id: data.alfama.id.recordID, set: ["nights": .null])
            }
            try expect(
                try await records(migrated, "Stop")[data.alfama.id.recordID]?["nights"].isNull == true,
                "nil is accepted now")
        },
        ConformanceCheck(
            .migration, "declaringPropertiesInAnotherOrderIsAMigrationNotAMisreading", requires: [.migrate]
        ) { c in
            // Stores lay records out in the declared order: a reordered declaration must never
            // read one property's value as another's.
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { $0.attributes.reverse() }
            let refusal = try await expectError(.incompatibleStore, entity: "Stop") {
                _ = try await c.migrate(store, to: changed, plan: nil)
            }
            try expect(
                refusal.message.contains("order of its stored properties"), "the error names the order: \(refusal)")
            let reopened = try await c.migrate(store, to: try TravelDomain.schema(), plan: nil)
            let migrated = try await Self.migrated(c, reopened, to: changed, untouched: ["Trip"])
            let stops = try await records(migrated, "Stop")
            for stop in data.stops {
                let record = try expectNotNil(stops[stop.id.recordID])
                try expectEqual(
                    [record["name"], record["city"], record["nights"]],
                    [.string(stop.name), .string(stop.city), .int(Int64(stop.nights))])
            }
        },
    ]

    /// The fixture schema with entity `old` renamed `new` (relationships pointing at it follow).
    static func renaming(_ old: String, to new: String) throws -> Schema {
        var entities = try TravelDomain.schema().entities
        for index in entities.indices {
            if entities[index].name == old {
                entities[index].name = new
                entities[index].renamedFrom = old
            }
            for r in entities[index].relationships.indices where entities[index].relationships[r].destination == old {
                entities[index].relationships[r].destination = new
            }
        }
        return try Schema(entities: entities)
    }
}
