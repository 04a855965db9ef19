import Foundation
import Strata
import Synchronization

/// Watches the plans the engine sends the backend under test during a differential run, and checks
/// each answer against the reference evaluator over the same transaction's records: the backend's
/// own unfiltered listing of the entity, filtered by ``PredicateEvaluator``, then sorted and paged
/// by the contract. A differential failure then names the plan the backend mishandled, with both
/// answers, instead of only the state that diverged afterwards.
final class PlanAuditor: Sendable {
    /// What one step's plans showed.
    struct StepLog: Sendable {
        /// Every plan answered in the step, in order (at most ``limit``).
        var plans: [String] = []
        /// Plans whose answer differs from the reference evaluator's, with both answers.
        var mismatches: [String] = []
    }

    static let limit = 24
    private let log = Mutex(StepLog())

    /// Starts a new step: the plans of the previous one are forgotten.
    func beginStep() { log.withLock { $0 = StepLog() } }

    /// What the step so far showed, as lines for a failure message (empty when no plan was sent).
    var report: String {
        let step = log.withLock { $0 }
        guard !step.plans.isEmpty else { return "" }
        let mismatches =
            step.mismatches.isEmpty
            ? "no plan answered differently from the reference evaluator"
            : "plans answered differently from the reference evaluator:\n"
                + step.mismatches.map { "  " + $0 }.joined(separator: "\n")
        return "\(mismatches)\nplans the backend answered in this step:\n"
            + step.plans.map { "  " + $0 }.joined(separator: "\n")
    }

    /// `store` with its backend watched.
    func audited(_ store: Store) -> Store {
        Store(
            backend: AuditedBackend(wrapping: store.backend, auditor: self), location: store.location, sync: store.sync)
    }

    /// The store `audited(_:)` wrapped, for the backend's own reopen.
    func unwrapped(_ store: Store) -> Store {
        guard let audited = store.backend as? AuditedBackend else { return store }
        return Store(backend: audited.wrapped, location: store.location, sync: store.sync)
    }

    func record(_ described: String, mismatch: String?) {
        // The plan as Swift prints it, without the module prefix on every case.
        let plan = described.replacingOccurrences(of: "StrataStorage.", with: "")
        log.withLock { step in
            if step.plans.count < Self.limit { step.plans.append(plan) }
            if let mismatch, step.mismatches.count < Self.limit { step.mismatches.append("\(plan): \(mismatch)") }
        }
    }

    /// Checks a fetch's answer; returns it unchanged.
    func checkFetch(_ plan: FetchPlan, _ answer: [Record], in transaction: any StorageReadTransaction) -> [Record] {
        let reference = try? Self.reference(plan, in: transaction)
        let ordered = !plan.sort.isEmpty || plan.limit != nil || plan.offset != 0
        var mismatch: String?
        if let reference {
            let (got, want) = (answer.map(\.id), reference.map(\.id))
            let same = ordered ? got == want : Set(got) == Set(want) && got.count == want.count
            if !same { mismatch = "the backend answered \(Self.ids(got)), the reference \(Self.ids(want))" }
        }
        record("fetch \(plan)", mismatch: mismatch)
        return answer
    }

    /// Checks a count's answer; returns it unchanged.
    func checkCount(_ plan: FetchPlan, _ answer: Int, in transaction: any StorageReadTransaction) -> Int {
        let reference = try? Self.reference(plan, in: transaction).count
        let mismatch = reference.flatMap { $0 == answer ? nil : "the backend counted \(answer), the reference \($0)" }
        record("count \(plan)", mismatch: mismatch)
        return answer
    }

    /// The contract's answer to `plan` over the entity's records as `transaction` lists them.
    static func reference(_ plan: FetchPlan, in transaction: any StorageReadTransaction) throws -> [Record] {
        let all = try transaction.fetch(FetchPlan(entity: plan.entity))
        let evaluator = PredicateEvaluator(transaction)
        let matching =
            try plan.predicate.map { predicate in try all.filter { try evaluator.matches($0, predicate) } } ?? all
        return PredicateEvaluator.sortAndPage(matching, plan)
    }

    private static func ids(_ ids: [RecordID]) -> String {
        let shown = ids.prefix(8).map { "\($0)" }.joined(separator: ", ")
        return "\(ids.count) [\(shown)\(ids.count > 8 ? ", …" : "")]"
    }
}

/// A backend whose transactions report every fetch and count to a ``PlanAuditor``; everything else
/// passes through unchanged.
final class AuditedBackend: StorageBackend {
    let wrapped: any StorageBackend
    let auditor: PlanAuditor

    init(wrapping backend: any StorageBackend, auditor: PlanAuditor) {
        (self.wrapped, self.auditor) = (backend, auditor)
    }

    var schema: Schema { wrapped.schema }
    var capabilities: FetchCapabilities { wrapped.capabilities }
    var sharedIdentity: String? { wrapped.sharedIdentity }
    var externalCommits: ExternalCommitPolling? { wrapped.externalCommits }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        let auditor = auditor
        return try await wrapped.read { try body(AuditedReadTransaction(base: $0, auditor: auditor)) }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T {
        let auditor = auditor
        return try await wrapped.write { try body(AuditedWriteTransaction(base: $0, auditor: auditor)) }
    }

    func close() async throws { try await wrapped.close() }
}

final class AuditedReadTransaction: ForwardingReadTransaction {
    let base: any StorageReadTransaction
    let auditor: PlanAuditor
    var readsGoTo: any StorageReadTransaction { base }

    init(base: any StorageReadTransaction, auditor: PlanAuditor) { (self.base, self.auditor) = (base, auditor) }

    func fetch(_ plan: FetchPlan) throws -> [Record] { auditor.checkFetch(plan, try base.fetch(plan), in: base) }
    func count(_ plan: FetchPlan) throws -> Int { auditor.checkCount(plan, try base.count(plan), in: base) }
}

final class AuditedWriteTransaction: ForwardingReadTransaction, StorageWriteTransaction {
    let base: any StorageWriteTransaction
    let auditor: PlanAuditor
    var readsGoTo: any StorageReadTransaction { base }

    init(base: any StorageWriteTransaction, auditor: PlanAuditor) { (self.base, self.auditor) = (base, auditor) }

    func fetch(_ plan: FetchPlan) throws -> [Record] { auditor.checkFetch(plan, try base.fetch(plan), in: base) }
    func count(_ plan: FetchPlan) throws -> Int { auditor.checkCount(plan, try base.count(plan), in: base) }
    func put(_ record: Record) throws { try base.put(record) }
    func put(contentsOf records: [Record]) throws { try base.put(contentsOf: records) }
    func delete(_ entity: String, id: RecordID) throws { try base.delete(entity, id: id) }
    func delete(_ entity: String, ids: [RecordID]) throws { try base.delete(entity, ids: ids) }
    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        try base.setLinks(entity, relationship: relationship, from: owner, to: targets)
    }
    func setMetadata(_ key: String, _ value: [UInt8]?) throws { try base.setMetadata(key, value) }
}
