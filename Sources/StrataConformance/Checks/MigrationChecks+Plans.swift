import Foundation
import Strata
import Synchronization

/// Plans: chains, versions, constraints checked over the stored records,
/// relationships re-derived, progress.
extension MigrationChecks {
    /// The fixture with Stop's `name` attribute called `name` (version 1), renamed in each later version.
    static func stopNameChain(_ names: [String]) throws -> [SchemaVersion] {
        var versions = [SchemaVersion("1", try TravelDomain.schema())]
        var previous = "name"
        for (number, name) in names.enumerated() {
            let schema = try schema(changing: "Stop") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "name" }) {
                    entity.attributes[index].name = name
                    entity.attributes[index].renamedFrom = previous
                }
            }
            versions.append(SchemaVersion(String(number + 2), schema))
            previous = name
        }
        return versions
    }

    static let plans: [ConformanceCheck] = [
        ConformanceCheck(.migration, "aUniqueConstraintOverDistinctValuesIsAddedAndEnforced", requires: [.migrate]) {
            c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { $0.uniqueConstraints.append(["name"]) }
            let migrated = try await Self.migrated(c, store, to: changed, untouched: ["Trip"])
            try await expectRejected(migrated, .uniqueViolation, entity: "Stop") {
                try await migrated.transaction { tx in
                    try tx.insert(
                        Record(
                            entity: "Stop", id: .uuid(UUID()),
                            values: [
                                "name": .string(data.alfama.name), "city": .string("Lisbon"), "nights": .int(1),
                                "trip": data.lisbonSpring.id.recordID.value,
                            ]))
                }
            }
        },
        ConformanceCheck(.migration, "aUniqueConstraintOverDuplicatesFailsNamingThemNeverDedupes", requires: [.migrate])
        { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { $0.uniqueConstraints.append(["city"]) }
            let lisbon = data.stops.filter { $0.city == data.alfama.city }
            try expect(lisbon.count >= 2, "the fixture has two stops in one city")
            let (error, _) = try await expectMigrationRefused(
                c, store, .uniqueViolation, entity: "Stop", property: "city"
            ) {
                _ = try await c.migrate(store, to: changed, plan: try plan(to: changed))
            }
            for stop in lisbon {
                try expect(error.message.contains(stop.id.recordID.description), "\(stop.name) is named: \(error)")
            }
        },
        ConformanceCheck(.migration, "chainedRenamesRunFromAnyOlderVersionInOneEntry", requires: [.migrate]) { c in
            let versions = try stopNameChain(["title", "heading"])
            let plan = MigrationPlan(versions: versions)
            // From version 1 straight to 3.
            let (first, data) = try await c.seeded()
            let token = try await first.currentHistoryToken()
            let direct = try await c.migrate(first, to: versions[2].schema, plan: plan)
            try expectEqual(
                try await records(direct, "Stop")[data.alfama.id.recordID]?["heading"], .string(data.alfama.name))
            let entries = try await direct.history(after: token)
            try expectEqual(entries.count, 1, "one entry for the whole chain")
            try expect(
                entries.first?.contextName?.contains("1 → 3") == true,
                "the entry names both ends: \(String(describing: entries.first?.contextName))")
            // Through version 2 first, then on to 3.
            let (second, secondData) = try await c.seeded()
            let atTwo = try await c.migrate(
                second, to: versions[1].schema, plan: MigrationPlan(versions: Array(versions.prefix(2))))
            let atThree = try await c.migrate(atTwo, to: versions[2].schema, plan: plan)
            try expectEqual(
                try await records(atThree, "Stop")[secondData.alfama.id.recordID]?["heading"],
                .string(secondData.alfama.name))
        },
        ConformanceCheck(.migration, "aStoreOfANewerVersionIsRefusedNamingBothVersions", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let versions = try stopNameChain(["title"])
            let newer = try await c.migrate(store, to: versions[1].schema, plan: MigrationPlan(versions: versions))
            let before = try await StoreSnapshot.take(newer)
            let error = try await expectError(.incompatibleStore) {
                _ = try await c.migrate(newer, to: versions[0].schema, plan: MigrationPlan(versions: [versions[0]]))
            }
            try expect(
                error.message.contains("version 2") && error.message.contains("1"), "both versions are named: \(error)")
            let again = try await c.migrate(newer, to: versions[1].schema, plan: MigrationPlan(versions: versions))
            try expectEqual(try await StoreSnapshot.take(again), before, "the newer store is untouched")
            try expectEqual(
                try await records(again, "Stop")[data.alfama.id.recordID]?["title"], .string(data.alfama.name))
        },
        ConformanceCheck(.migration, "reopeningAtTheStoresVersionWritesNothing", requires: [.migrate]) { c in
            let (store, _) = try await c.seeded()
            let versions = try stopNameChain(["title"])
            let migrated = try await c.migrate(store, to: versions[1].schema, plan: MigrationPlan(versions: versions))
            let before = try await StoreSnapshot.take(migrated)
            let again = try await c.migrate(migrated, to: versions[1].schema, plan: MigrationPlan(versions: versions))
            try expectEqual(try await StoreSnapshot.take(again), before, "no records, versions or history written")
            let plain = try await c.migrate(again, to: versions[1].schema, plan: nil)
            try expectEqual(try await StoreSnapshot.take(plain), before, "and the app can open it without the plan")
        },
        ConformanceCheck(.migration, "progressIsMonotonicAndEndsFinished", requires: [.migrate]) { c in
            let store = try await c.store()
            try await store.transaction { tx in
                for number in 0..<2_500 { try tx.insert(Tag(id: "t\(number)", label: "Tag \(number)")) }
            }
            let changed = try schema(changing: "Tag") {
                $0.attributes.append(AttributeDescription(name: "pinned", type: .bool, defaultValue: .bool(true)))
            }
            let seen = Mutex<[MigrationProgress]>([])
            _ = try await c.migrate(store, to: changed, plan: try plan(to: changed)) { step in
                seen.withLock { $0.append(step) }
            }
            let steps = seen.withLock { $0 }
            let copying = steps.filter { $0.phase == .copying(entity: "Tag") }
            try expect(!copying.isEmpty, "copying Tag is reported")
            try expectEqual(copying.map(\.done), copying.map(\.done).sorted(), "done never goes back")
            try expectEqual(copying.last?.done, 2_500)
            try expect(
                copying.allSatisfy { $0.total == 2_500 && $0.stage == 1 && $0.stages == 1 && $0.to == "2" },
                "every step names its stage and total")
            try expect(copying.count >= 3, "reported per batch, not once: \(copying.count)")
            try expectEqual(steps.last?.phase, .finished)
        },
        ConformanceCheck(.migration, "orderingChangesKeepEveryMember", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let owners = data.trips.map(\.id.recordID)
            let people = data.people.map(\.id.recordID)
            let tags = try await store.read {
                try $0.relatedRecords("Trip", "tags", owners: owners).mapValues { $0.map(\.id) }
            }
            let interests = try await store.read {
                try $0.relatedRecords("Person", "interests", owners: people).mapValues { $0.map(\.id) }
            }
            var entities = try TravelDomain.schema().entities
            for index in entities.indices {
                for r in entities[index].relationships.indices {
                    let relationship = entities[index].relationships[r]
                    if entities[index].name == "Trip", relationship.name == "tags" {
                        entities[index].relationships[r].isOrdered = true
                    }
                    if entities[index].name == "Person", relationship.name == "interests" {
                        entities[index].relationships[r].isOrdered = false
                    }
                }
            }
            let migrated = try await Self.migrated(c, store, to: try Schema(entities: entities), untouched: ["Stop"])
            let newTags = try await migrated.read {
                try $0.relatedRecords("Trip", "tags", owners: owners).mapValues { $0.map(\.id) }
            }
            try expectEqual(newTags, tags, "an ordered list keeps the members in their order")
            let newInterests = try await migrated.read {
                try $0.relatedRecords("Person", "interests", owners: people).mapValues { Set($0.map(\.id)) }
            }
            try expectEqual(newInterests, interests.mapValues { Set($0) }, "unordered, every member stays")
        },
        ConformanceCheck(.migration, "aToOneBecomesAToManyFromWhatTheInverseKept", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let booked = data.trips.filter { $0.agency == data.sol.id }.map(\.id.recordID).sorted()
            let migrated = try await Self.migrated(
                c, store, to: try manyToManyAgencies(), untouched: ["Stop", "Person"])
            let bookings = try await migrated.read {
                try $0.relatedRecords("Agency", "bookings", owners: [data.sol.id.recordID])
            }
            try expectEqual(bookings[data.sol.id.recordID]?.map(\.id).sorted(), booked, "Sol keeps its bookings")
            let agencies = try await migrated.read { try $0.relatedRecords("Trip", "agency", owners: booked) }
            for trip in booked {
                try expectEqual(agencies[trip]?.map(\.id), [data.sol.id.recordID], "\(trip) keeps Sol")
            }
        },
        ConformanceCheck(.migration, "aToManyBecomesAToOneOnlyWhereNoRecordHasSeveral", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            // Sol has several bookings: Agency.bookings cannot become a to-one holding them.
            var entities = try TravelDomain.schema().entities
            for index in entities.indices {
                for r in entities[index].relationships.indices {
                    if entities[index].name == "Agency", entities[index].relationships[r].name == "bookings" {
                        entities[index].relationships[r].cardinality = .toOne
                    }
                    if entities[index].name == "Trip", entities[index].relationships[r].name == "agency" {
                        entities[index].relationships[r].cardinality = .toMany
                    }
                }
            }
            let changed = try Schema(entities: entities)
            try await expectMigrationRefused(c, store, .migrationRequired, entity: "Agency", property: "bookings") {
                _ = try await c.migrate(store, to: changed, plan: try plan(to: changed))
            }
            _ = data
        },
        ConformanceCheck(.migration, "deleteRulesAndInversesHoldAfterAMigration", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let versions = try stopNameChain(["title"])
            let migrated = try await c.migrate(store, to: versions[1].schema, plan: MigrationPlan(versions: versions))
            // Trip.stops cascades: the trip's stops (rebuilt by the migration) go with it.
            try await migrated.transaction { tx in try tx.delete("Trip", id: data.lisbonSpring.id.recordID) }
            let stops = try await records(migrated, "Stop")
            for stop in data.stops where stop.trip == data.lisbonSpring.id {
                try expect(stops[stop.id.recordID] == nil, "\(stop.name) was cascaded")
            }
            try expectEqual(stops.count, data.stops.filter { $0.trip != data.lisbonSpring.id }.count)
            // Moving a stop keeps both sides' lists.
            let moved = data.ribeira.id.recordID
            try await migrated.transaction { tx in
                try tx.update("Stop", id: moved, set: ["trip": data.azoresHike.id.recordID.value])
            }
            let lists = try await migrated.read {
                try $0.relatedRecords(
                    "Trip", "stops", owners: [data.portoWine.id.recordID, data.azoresHike.id.recordID])
            }
            try expect(lists[data.portoWine.id.recordID]?.contains { $0.id == moved } != true, "the old trip lost it")
            try expect(lists[data.azoresHike.id.recordID]?.contains { $0.id == moved } == true, "the new trip has it")
        },
        ConformanceCheck(.migration, "aDestructiveResetOnlyWhenAskedForAndThenEmpty", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try schema(changing: "Stop") { entity in
                if let index = entity.attributes.firstIndex(where: { $0.name == "nights" }) {
                    entity.attributes[index].type = .bool  // lossy: no lightweight rule
                }
            }
            // Neither no plan nor an inferring one destroys anything.
            let (_, reopened) = try await expectMigrationRefused(c, store, .incompatibleStore) {
                _ = try await c.migrate(store, to: changed, plan: nil)
            }
            let (_, kept) = try await expectMigrationRefused(
                c, reopened, .migrationRequired, entity: "Stop", property: "nights"
            ) {
                _ = try await c.migrate(reopened, to: changed, plan: .lightweight)
            }
            let token = try await kept.currentHistoryToken()
            let reset = try await c.migrate(kept, to: changed, plan: .destructiveReset)
            for entity in changed.entities {
                try expectEqual(try await records(reset, entity.name).count, 0, "\(entity.name) is empty")
            }
            let entries = try await reset.history(after: token)
            try expectEqual(entries.map(\.author), [MigrationPlan.historyAuthor])
            try expect(
                entries.first?.contextName?.hasPrefix("reset") == true,
                "the entry says reset: \(String(describing: entries.first?.contextName))")
            try await reset.transaction { tx in
                try tx.insert(Record(entity: "Tag", id: .string("new"), values: ["label": .string("New")]))
            }
            try expectEqual(try await records(reset, "Tag").count, 1, "the emptied store takes records")
            _ = data
        },
    ]

    /// The fixture with Trip.agency ↔ Agency.bookings made a many-to-many.
    static func manyToManyAgencies() throws -> Schema {
        var entities = try TravelDomain.schema().entities
        for index in entities.indices {
            for r in entities[index].relationships.indices
            where entities[index].name == "Trip" && entities[index].relationships[r].name == "agency" {
                entities[index].relationships[r].cardinality = .toMany
            }
        }
        return try Schema(entities: entities)
    }
}
