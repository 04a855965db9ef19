import Foundation
import Strata

/// A migration that adds derived attributes backfills every stored record, and saves after it keep
/// them; one that changes what an attribute is derived from recomputes it.
extension DerivedChecks {
    /// The travel fixture with Trip.stopCount (counting stops) and Trip.nameKey (folding its name).
    static func travelWithDerivedAttributes(nameKey: Derivation) throws -> Schema {
        var entities = try TravelDomain.schema().entities
        let trip = try expectNotNil(entities.firstIndex { $0.name == "Trip" })
        var count = AttributeDescription(name: "stopCount", type: .int, isIndexed: true)
        count.derivation = .count("stops")
        var key = AttributeDescription(name: "nameKey", type: .string)
        key.derivation = nameKey
        entities[trip].attributes += [count, key]
        return try Schema(entities: entities)
    }

    static let migrations: [ConformanceCheck] = [
        ConformanceCheck(.derived, "aMigrationAddingDerivedAttributesBackfillsThem", requires: [.migrate]) { c in
            let (store, data) = try await c.seeded()
            let changed = try travelWithDerivedAttributes(nameKey: .folded("name"))
            let migrated = try await MigrationChecks.migrated(c, store, to: changed, untouched: ["Tag", "Stop"])
            let trips = try await MigrationChecks.records(migrated, "Trip")
            for trip in data.trips {
                let stops = data.stops.filter { $0.trip == trip.id }.count
                let record = try expectNotNil(trips[trip.id.recordID], "trip \(trip.name)")
                try expectEqual(record["stopCount"], .int(Int64(stops)), "\(trip.name)'s stops were counted")
                try expectEqual(
                    record["nameKey"],
                    .string(PredicateEvaluator.fold(trip.name, [.caseInsensitive, .diacriticInsensitive])))
            }
            try await migrated.repository(Stop.self).delete(data.alfama.id)
            let after = try await MigrationChecks.records(migrated, "Trip")[data.alfama.trip.recordID]
            let before = data.stops.filter { $0.trip == data.alfama.trip }.count
            try expectEqual(after?["stopCount"], .int(Int64(before - 1)), "saves after the migration keep it")
            // A derivation that changes is recomputed: nameKey becomes a function of the name.
            let relabelled = try travelWithDerivedAttributes(
                nameKey: .function("shout") { record in
                    guard case .string(let name) = record["name"] else { return .null }
                    return .string(name.uppercased())
                })
            let again = try await c.migrate(
                migrated, to: relabelled,
                plan: MigrationPlan(
                    versions: [SchemaVersion("2", changed), SchemaVersion("3", relabelled)]))
            let shouted = try await MigrationChecks.records(again, "Trip")[data.lisbonSpring.id.recordID]
            try expectEqual(shouted?["nameKey"], .string(data.lisbonSpring.name.uppercased()), "recomputed")
        }
    ]
}
