import Foundation
import Strata

/// `Store.rehearseMigration`: a dry run that runs every step and check of the real migration and
/// rolls back, so it fails where the real run fails and never changes the store.
extension MigrationChecks {
    static let rehearsals: [ConformanceCheck] = [
        ConformanceCheck(.migration, "aRehearsalFailsWhereTheMigrationFailsAndChangesNothing", requires: [.migrate]) {
            c in
            let (store, data) = try await c.seeded()
            let before = try await StoreSnapshot.take(store)
            let (registry, url) = try c.registered(store)
            try await store.close()
            func rehearse(_ schema: Schema, _ plan: MigrationPlan) async throws -> Bool {
                try await Store.rehearseMigration(
                    url, schema: schema, options: OpenOptions(registry: registry, migrations: plan))
            }

            // A required attribute a custom stage leaves empty: what the real run refuses.
            let required = try schema(changing: "Stop") { $0.attributes.append(.init(name: "label", type: .string)) }
            try await expectError(.missingValue, entity: "Stop", property: "label") {
                _ = try await rehearse(required, try plan(to: required, stages: [.custom(from: "1", to: "2") { _ in }]))
            }
            // A unique constraint the stored records break.
            let unique = try schema(changing: "Stop") { $0.uniqueConstraints.append(["city"]) }
            try await expectError(.uniqueViolation, entity: "Stop") {
                _ = try await rehearse(unique, try plan(to: unique))
            }
            // One that can run: every step ran, and was rolled back.
            let optional = try schema(changing: "Stop") {
                $0.attributes.append(.init(name: "note", type: .string, isOptional: true))
            }
            try expect(try await rehearse(optional, try plan(to: optional)), "the store needs this migration")
            try expect(
                !(try await Store.rehearseMigration(
                    url, schema: try TravelDomain.schema(), options: .init(registry: registry))),
                "the store opens with its own schema as it is")

            let reopened = try await Store.open(
                url, schema: try TravelDomain.schema(), options: .init(registry: registry))
            c.adopt(reopened)
            let after = try await StoreSnapshot.take(reopened)
            try expect(before == after, "a rehearsal changed the store: \(before.difference(from: after))")
            try expectEqual(try await reopened.repository(Stop.self).fetch(data.alfama.id)?.name, data.alfama.name)
            // And the real run still does what the rehearsal said.
            let migrated = try await c.migrate(reopened, to: optional, plan: try plan(to: optional))
            try expectEqual(try await records(migrated, "Stop")[data.alfama.id.recordID]?["note"], .null)
        }
    ]
}
