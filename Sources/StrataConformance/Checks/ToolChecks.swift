import Foundation
import Strata
import StrataTools

/// What tools rely on: the app's declared schema recorded at open, and a store opened without the
/// app's types applying it — delete rules judged by it when references are checked.
enum ToolChecks {
    static let all: [ConformanceCheck] = [
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
            let opening = try c.opener(store)
            try await store.close()
            let tool = try await Store.openWithStoredSchema(location: store.location, opening: opening)
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
            let opening = try c.opener(store)
            try await store.close()
            let tool = try await Store.openWithStoredSchema(location: store.location, opening: opening)
            c.adopt(tool)
            try expectEqual(try await tool.checkReferences().count, 0, "the tool judges by the recorded rule")
            try await tool.close()
            let stored = try await Store.storedShape(of: "the store", opening: opening)
            let bare = Store(backend: try await opening(try stored.schema()), location: store.location)
            c.adopt(bare)
            let findings = try await bare.checkReferences()
            try expectEqual(findings.count, 1, "without rules the reference is damage: \(findings)")
            try expectEqual(findings.first?.entity, "Trip")
            try expectEqual(findings.first?.property, "coverPhoto")
            try expectEqual(findings.first?.recordID, data.portoWine.id.recordID)
        },
    ]
}
