import Foundation
import Strata

/// Deeply nested predicates — as deep as a filter from outside may be, and past what a backend's
/// translator takes — are answered exactly as the reference evaluator answers them, never with a
/// storage failure. The engine evaluates what a backend's ``FetchCapabilities/maximumNesting``
/// declines; the backend answers natively everything up to it.
extension QueryChecks {
    /// The shapes nested: each wraps `inner` in one more level, up to `deepest` levels (a to-many
    /// step multiplies the records an evaluation visits by its fan-out, so those shapes stop at
    /// a few thousand visits).
    static let nestingShapes:
        [(name: String, deepest: Int, wrap: @Sendable (FilterExpression, Int) -> FilterExpression)] = [
            (
                "to-one then to-many", 12,
                { inner, _ in .relatedOne(relationship: "traveller", .anyRelated(relationship: "trips", inner)) }
            ),
            ("negation", 64, { inner, _ in .not(inner) }),
            (
                "and/or", 64,
                { inner, level in
                    let other = FilterExpression.compare("isFavorite", .equal, .bool(level % 3 == 0), [])
                    return level % 2 == 0 ? .and([inner, .not(other)]) : .or([inner, other])
                }
            ),
            (
                "mixed", 6,
                { inner, level in
                    level % 2 == 0
                        ? .relatedOne(relationship: "traveller", .not(.anyRelated(relationship: "trips", .not(inner))))
                        : .noneRelated(relationship: "stops", .relatedOne(relationship: "trip", .not(inner)))
                }
            ),
        ]

    /// `levels` of `shape` around a budget test, over Trip.
    static func nested(_ levels: Int, _ shape: @Sendable (FilterExpression, Int) -> FilterExpression)
        -> FilterExpression
    {
        var expression = FilterExpression.compare("budget", .greater, .int(500), [])
        for level in 0..<levels { expression = shape(expression, level) }
        return expression
    }

    /// The records of `plan` by the reference evaluator over every record of its entity.
    static func reference(_ store: Store, _ plan: FetchPlan) async throws -> Set<RecordID> {
        try await store.backend.read { tx in
            let evaluator = PredicateEvaluator(tx)
            guard let predicate = plan.predicate else {
                return Set(try tx.fetch(FetchPlan(entity: plan.entity)).map(\.id))
            }
            return Set(
                try tx.fetch(FetchPlan(entity: plan.entity)).filter { try evaluator.matches($0, predicate) }.map(\.id))
        }
    }

    static let nesting: [ConformanceCheck] = [
        ConformanceCheck(.queries, "predicatesNestedDeeperThanTheBackendTakesAreAnsweredAsTheReferenceAnswersThem") {
            c in
            let (store, _) = try await c.seeded()
            for shape in nestingShapes {
                for levels in [1, 2, 3, 5, 6, 8, 9, 10, 11, 12, 16, 24, 32, 48, 64] where levels <= shape.deepest {
                    let plan = FetchPlan(
                        entity: "Trip", predicate: nested(levels, shape.wrap), sort: [SortKey("name")], limit: 3,
                        offset: 1)
                    let expected = try await reference(store, FetchPlan(entity: "Trip", predicate: plan.predicate))
                    let got = try await store.read { try $0.fetch(plan) }
                    let sorted = FetchPlan(entity: "Trip", predicate: plan.predicate, sort: [SortKey("name")])
                    let all = try await store.read { try $0.fetch(sorted) }
                    try expectEqual(Set(all.map(\.id)), expected, "\(shape.name), \(levels) levels")
                    try expectEqual(got.map(\.id), Array(all.dropFirst(1).prefix(3)).map(\.id), "\(shape.name) page")
                    let counted = try await store.read {
                        try $0.count(FetchPlan(entity: "Trip", predicate: plan.predicate))
                    }
                    try expectEqual(counted, expected.count, "\(shape.name), \(levels) levels, counted")
                }
            }
        },
        ConformanceCheck(.queries, "filterTextAtItsDepthLimitIsAnsweredWhateverTheBackend") { c in
            let (store, data) = try await c.seeded()
            try await store.repository(Passport.self).insert(Passport(number: "P-1", owner: data.ana.id))
            let schema = store.schema
            // 31 pairs of steps and the comparison: 63 levels, one under the limit.
            let chain = String(repeating: "passport.owner.", count: 31) + "name == \"Ana\""
            let negations = String(repeating: "!", count: FilterText.maximumDepth - 1) + "(isVerified == true)"
            let parentheses =
                String(repeating: "(", count: FilterText.maximumDepth - 1) + "age > 30"
                + String(repeating: ") && age < 40", count: FilterText.maximumDepth - 1)
            for (text, expected) in [(chain, ["Ana"]), (negations, ["Bruno", "Dário"]), (parentheses, ["Ana"])] {
                let predicate = try FilterText.parse(text, entity: "Person", schema: schema)
                let plan = FetchPlan(entity: "Person", predicate: predicate, sort: [SortKey("name")])
                let names = try await store.read { try $0.fetch(plan) }.map { $0["name"].description }
                try expectEqual(names, expected.map { Value.string($0).description }, "\(text.prefix(40))…")
            }
        },
        ConformanceCheck(.queries, "aBackendAnswersItselfEveryPredicateAsDeepAsItsNestingLimit") { c in
            let (store, _) = try await c.seeded()
            let capabilities = store.backend.capabilities
            let limit = capabilities.maximumNesting ?? 256
            for shape in nestingShapes {
                var levels = 0
                while levels < shape.deepest, nested(levels + 1, shape.wrap).nesting <= limit { levels += 1 }
                let predicate = nested(levels, shape.wrap)
                guard predicate.requiredFeatures.isSubset(of: capabilities.predicateFeatures) else { continue }
                let plan = FetchPlan(entity: "Trip", predicate: predicate)
                let native = try await store.backend.read { Set(try $0.fetch(plan).map(\.id)) }
                try expectEqual(
                    native, try await reference(store, plan),
                    "\(shape.name): \(levels) levels, nesting \(predicate.nesting) of \(limit)")
            }
        },
    ]
}
