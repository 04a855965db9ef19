import Foundation
import Strata
import StrataTools

/// What tools rely on: the app's declared schema recorded at open, and a store opened without the
/// app's types applying it — delete rules judged by it when references are checked.
enum ToolChecks {
    static var all: [ConformanceCheck] { basics + loads }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.tools, "attachingReadsTheStoredShapeAndChangesNothing", requires: [.migrate]) { c in
            let (store, _) = try await c.seeded()
            let (registry, url) = try c.registered(store)
            let before = try await store.history().count
            let attached = try expectNotNil(
                try await registry.attach(try StoreLocation(url)), "a store is there: attach reports its shape")
            try expect(
                attached.sameShape(as: SchemaDescription(store.schema)),
                "attach reports the shape the store was written with: \(attached)")
            try expectEqual(try await Store.storedShape(at: url, registry: registry), attached)
            try expect(try await registry.exists(try StoreLocation(url)), "exists agrees with attach")
            try expectEqual(try await store.history().count, before, "attaching wrote nothing")
            let reopened = try await c.migrate(store, to: store.schema, plan: nil)
            try expectEqual(try await reopened.history().count, before, "opening an equal shape wrote nothing")
        },
        ConformanceCheck(.tools, "anAppsOpenRecordsItsDeclaredSchema", requires: [.migrate]) { c in
            let schema = try TravelDomain.schema()
            let store = try await c.store(schema)
            try expectEqual(try await store.declaredSchema(), nil, "a store wrapped around a backend records nothing")
            let opened = try await c.migrate(store, to: schema, plan: nil)
            let declared = try expectNotNil(
                try await opened.declaredSchema(), "opening with the app's schema records it")
            try expectEqual(declared, SchemaFile(schema))
            let trip = try expectNotNil(declared.entities.first { $0.name == "Trip" })
            try expectEqual(trip.relationships.first { $0.name == "coverPhoto" }?.deleteRule, .noAction)
            try expectEqual(trip.relationships.first { $0.name == "stops" }?.deleteRule, .cascade)
        },
        ConformanceCheck(.tools, "aStoreOpenedWithoutTheAppsTypesAppliesItsRecordedRules", requires: [.migrate]) { c in
            let (seeded, data) = try await c.seeded()
            let store = try await c.migrate(seeded, to: try TravelDomain.schema(), plan: nil)
            let (registry, url) = try c.registered(store)
            try await store.close()
            let tool = try await Store.openStored(url, options: OpenOptions(registry: registry))
            c.adopt(tool)
            try expectEqual(
                tool.schema.entity("Person")?.relationship("trips")?.deleteRule, .cascade,
                "the recorded rules, not the bare shape's nullify")
            try await tool.transaction { try $0.delete("Trip", id: data.lisbonSpring.id.recordID) }
            let stops = try await tool.read {
                try $0.fetch(
                    FetchPlan(
                        entity: "Stop", predicate: .compare("trip", .equal, data.lisbonSpring.id.recordID.value, [])))
            }
            try expectEqual(stops.count, 0, "deleting a trip through the tool's store cascades to its stops")
            try expectEqual(
                try await tool.declaredSchema(), SchemaFile(try TravelDomain.schema()), "a tool's open records nothing")
        },
        ConformanceCheck(.tools, "danglingReferencesAreJudgedByTheRecordedDeleteRules", requires: [.migrate]) { c in
            let (seeded, data) = try await c.seeded()
            let store = try await c.migrate(seeded, to: try TravelDomain.schema(), plan: nil)
            let photo = Photo(caption: "Cover")
            try await store.repository(Photo.self).insert(photo)
            var trip = data.portoWine
            trip.coverPhoto = photo.id
            try await store.repository(Trip.self).update(trip)
            try await store.repository(Photo.self).delete(photo.id)
            try expectEqual(try await store.checkReferences().count, 0, "noAction leaves the reference by rule")
            let (registry, url) = try c.registered(store)
            try await store.close()
            let tool = try await Store.openStored(url, options: OpenOptions(registry: registry))
            c.adopt(tool)
            try expectEqual(try await tool.checkReferences().count, 0, "the tool judges by the recorded rule")
            try await tool.close()
            let stored = try expectNotNil(try await Store.storedShape(at: url, registry: registry), "a store is there")
            let bare = try await Store.open(url, schema: try stored.schema(), options: OpenOptions(registry: registry))
            c.adopt(bare)
            let findings = try await bare.checkReferences()
            try expectEqual(findings.count, 1, "without rules the reference is damage: \(findings)")
            try expectEqual(findings.first?.entity, "Trip")
            try expectEqual(findings.first?.property, "coverPhoto")
            try expectEqual(findings.first?.recordID, data.portoWine.id.recordID)
        },
    ]
}

/// A load that ends with references to records it never loaded reports each of them.
extension ToolChecks {
    static let loads: [ConformanceCheck] = [
        ConformanceCheck(.tools, "aLoadThatEndsWithDanglingReferencesReportsThem") { c in
            let (source, data) = try await c.seeded()
            var trip = try expectNotNil(
                try await source.read { try $0.record("Trip", id: data.portoWine.id.recordID) }, "the seeded trip")
            let missingPerson = UUID()
            trip.id = .uuid(UUID())
            trip.version = 1
            var values = trip.values
            values["traveller"] = .uuid(missingPerson)
            values["agency"] = .null
            values["coverPhoto"] = .null
            trip = Record(entity: "Trip", id: trip.id, version: 1, values: values)
            let target = try await c.store()
            let loader = StoreLoader(store: target)
            try await loader.load(
                [LoadedRecord(record: trip, links: ["stops": [.uuid(UUID())]])], through: 1)
            let findings = try await loader.finish()
            try expectEqual(findings.count, 2, "the traveller and the stop: \(findings)")
            try expect(
                findings.allSatisfy { $0.entity == "Trip" && $0.recordID == trip.id },
                "each finding names the trip: \(findings)")
            try expectEqual(Set(findings.compactMap(\.property)), ["traveller", "stops"])
            try expectEqual(try await loader.position(), 0, "the load ended")
        }
    ]
}
