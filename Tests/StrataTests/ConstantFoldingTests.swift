import Foundation
import StrataConformance
import StrataInMemory
import Testing

@testable import Strata

/// Reads pass through, and every plan the engine sends is kept.
private final class RecordingReads: ForwardingReadTransaction {
    let readsGoTo: any StorageReadTransaction
    var plans: [FetchPlan] = []

    init(_ inner: any StorageReadTransaction) { readsGoTo = inner }

    func fetch(_ plan: FetchPlan) throws -> [Record] {
        plans.append(plan)
        return try readsGoTo.fetch(plan)
    }

    func count(_ plan: FetchPlan) throws -> Int {
        plans.append(plan)
        return try readsGoTo.count(plan)
    }
}

/// A backend that declares no predicate feature is never sent a predicate, not even a constant
/// one; predicates that fold to a constant are answered by the engine, on every capability.
@Suite("Constant predicates")
struct ConstantFoldingTests {
    static let never: [FilterExpression] = [
        .constant(false), .inList("label", [], []), .not(.constant(true)), .or([]),
        .and([.compare("label", .equal, "a", []), .constant(false)]), .not(.and([])),
    ]
    static let always: [FilterExpression] = [
        .constant(true), .and([]), .not(.or([])),
        .or([.compare("label", .equal, "a", []), .not(.inList("label", [], []))]),
    ]

    @Test(arguments: [FetchCapabilities.none, .all])
    func foldedPredicatesNeverReachTheBackendAsConstants(_ capabilities: FetchCapabilities) async throws {
        let backend = InMemoryBackend(schema: try TravelDomain.schema())
        let store = Store(backend: backend)
        try await store.repository(Tag.self).insert(contentsOf: [Tag(id: "a", label: "a"), Tag(id: "b", label: "b")])
        let executor = QueryExecutor(capabilities: capabilities)
        let (answers, sent) = try await backend.read { tx in
            let reads = RecordingReads(tx)
            var answers: [(FilterExpression, fetched: Int, counted: Int, expected: Int)] = []
            for (predicates, expected) in [(Self.never, 0), (Self.always, 2)] {
                for predicate in predicates {
                    let plan = FetchPlan(entity: "Tag", predicate: predicate)
                    answers.append(
                        (
                            predicate, try executor.fetch(plan, in: reads).count, try executor.count(plan, in: reads),
                            expected
                        ))
                }
            }
            return (
                answers.map { "\($0.0): fetched \($0.fetched), counted \($0.counted), expected \($0.expected)" },
                reads.plans
            )
        }
        for answer in answers {
            #expect(
                answer.hasSuffix("fetched 0, counted 0, expected 0")
                    || answer.hasSuffix("fetched 2, counted 2, expected 2"), "\(answer)")
        }
        for plan in sent {
            if case .constant = plan.predicate { Issue.record("a constant predicate reached the backend: \(plan)") }
            if capabilities.predicateFeatures.isEmpty, plan.predicate != nil {
                Issue.record("a backend declaring no predicate feature was sent \(plan)")
            }
        }
        let deleted = try await store.repository(Tag.self).delete(where: .never)
        #expect(deleted == 0)
        #expect(try await store.repository(Tag.self).count() == 2)
    }
}
