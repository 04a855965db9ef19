import Foundation
import Strata

/// A backend answers natively every plan whose features it declares, exactly as the reference
/// evaluator does. The other Queries checks go through the engine, which evaluates what a backend
/// declines; this one asks the backend itself, so a feature declared but not (or wrongly)
/// answered fails here, naming the plan and the features it needs.
extension QueryChecks {
    static func declaredPlans(_ data: TravelData) -> [FetchPlan] {
        let ana = Value.string(data.ana.name)
        let predicates: [(String, FilterExpression)] = [
            ("Person", .compare("name", .equal, ana, [])),
            ("Person", .compare("age", .notEqual, .int(30), [])),
            ("Person", .compare("age", .less, .int(40), [])),
            ("Person", .compare("rating", .greaterOrEqual, .double(4), [])),
            ("Person", .inList("name", [ana, "nobody"], [])),
            ("Stop", .between("nights", .int(1), .int(3))),
            ("Stop", .text("name", .contains, "a", [])),
            ("Stop", .text("city", .hasPrefix, "lis", [.caseInsensitive])),
            ("Person", .text("name", .hasPrefix, "dari", [.caseInsensitive, .diacriticInsensitive])),
            ("Person", .isNil("age")),
            ("Person", .or([.compare("name", .equal, ana, []), .not(.compare("age", .less, .int(40), []))])),
            ("Trip", .relatedOne(relationship: "traveller", .compare("name", .equal, ana, []))),
            ("Trip", .anyRelated(relationship: "tags", .compare("label", .equal, .string(data.beach.label), []))),
            ("Trip", .noneRelated(relationship: "tags", .compare("label", .equal, .string(data.beach.label), []))),
        ]
        return predicates.map { FetchPlan(entity: $0.0, predicate: $0.1) }
    }

    static let declared: [ConformanceCheck] = [
        ConformanceCheck(.queries, "everyDeclaredPredicateFeatureIsAnsweredByTheBackendItself") { c in
            let (store, data) = try await c.seeded()
            let declared = store.backend.capabilities.predicateFeatures
            for plan in declaredPlans(data) {
                guard let predicate = plan.predicate, predicate.requiredFeatures.isSubset(of: declared) else {
                    continue
                }
                let (native, reference) = try await store.backend.read { tx in
                    let evaluator = PredicateEvaluator(tx)
                    let all = try tx.fetch(FetchPlan(entity: plan.entity))
                    return (
                        Set(try tx.fetch(plan).map(\.id)),
                        Set(try all.filter { try evaluator.matches($0, predicate) }.map(\.id))
                    )
                }
                try expectEqual(
                    native, reference,
                    "the backend's own answer to \(plan.entity) where \(predicate) (it declares "
                        + "\(predicate.requiredFeatures.map(\.rawValue).sorted()))"
                )
            }
        }
    ]
}
