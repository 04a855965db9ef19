import Foundation
import Strata

/// A query naming what the schema does not hold is a typed error, never an empty result.
extension QueryChecks {
    static let errors: [ConformanceCheck] = [
        ConformanceCheck(.queries, "unknownPropertyIsATypedError") { c in
            let (store, _) = try await c.seeded()
            try await expectError(.unknownProperty, entity: "Person", property: "shoeSize") {
                _ = try await store.read { try $0.fetch(FetchPlan(entity: "Person", predicate: .isNil("shoeSize"))) }
            }
            try await expectError(.unknownProperty, entity: "Person", property: "shoeSize") {
                _ = try await store.read { try $0.fetch(FetchPlan(entity: "Person", sort: [SortKey("shoeSize")])) }
            }
        },
        ConformanceCheck(.queries, "unknownEntityIsATypedError") { c in
            let store = try await c.store()
            try await expectError(.unknownEntity, entity: "Spaceship") {
                _ = try await store.read { try $0.fetch(FetchPlan(entity: "Spaceship")) }
            }
        },
        ConformanceCheck(.queries, "relationshipOfTheWrongKindIsATypedError") { c in
            let (store, _) = try await c.seeded()
            try await expectError(.invalidQuery, entity: "Trip", property: "stops") {
                _ = try await store.read {
                    try $0.fetch(
                        FetchPlan(entity: "Trip", predicate: .relatedOne(relationship: "stops", .constant(true))))
                }
            }
        },
        ConformanceCheck(.queries, "aConstantOfTheWrongTypeIsATypedError") { c in
            let (store, _) = try await c.seeded()
            try await expectError(.typeMismatch, entity: "Person", property: "age") {
                _ = try await store.read {
                    try $0.fetch(FetchPlan(entity: "Person", predicate: .compare("age", .less, .string("30"), [])))
                }
            }
            try await expectError(.typeMismatch, entity: "Trip", property: "traveller") {
                _ = try await store.read {
                    try $0.fetch(FetchPlan(entity: "Trip", predicate: .compare("traveller", .equal, .int(1), [])))
                }
            }
            try await expectError(.typeMismatch, entity: "Person", property: "age") {
                _ = try await store.read {
                    try $0.fetch(FetchPlan(entity: "Person", predicate: .text("age", .contains, "3", [])))
                }
            }
        },
        ConformanceCheck(.queries, "negativeLimitIsATypedError") { c in
            let (store, _) = try await c.seeded()
            try await expectError(.invalidQuery) {
                _ = try await store.repository(Trip.self).fetch(Query.all.limit(-1))
            }
        },
    ]
}
