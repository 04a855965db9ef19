import Strata
import StrataSync

extension SyncServer {
    /// What one request may be sent of each entity: the caller's read scope, narrowed to what the
    /// request's subscriptions cover (everything the scope allows when it names none).
    struct ReadFilter {
        let access: SyncAccess
        let identity: SyncIdentity?
        let coverage: SubscriptionCoverage?

        init(access: SyncAccess, identity: SyncIdentity?, subscriptions: [SyncSubscription]?, schema: Schema) throws {
            self.access = access
            self.identity = identity
            self.coverage = try subscriptions.map { try SubscriptionCoverage($0, schema: schema) }
        }

        /// Whether anything is filtered at all (a trusted caller without subscriptions reads all).
        var restricts: Bool { identity != nil || coverage != nil }

        /// The records of `entity` the request may be sent.
        func scope(of entity: String) -> SyncAccess.Scope {
            let scope = access.scope(of: entity, for: identity)
            guard let coverage else { return scope }
            guard let covered = coverage.filters[entity] else { return .none }
            if covered == .constant(true) { return scope }
            switch scope {
            case .none: return .none
            case .all: return .matching(covered)
            case .matching(let filter): return .matching(.and([filter, covered]))
            }
        }

        /// Whether `record` (nil: absent) may be sent.
        func isVisible(_ record: Record?, in transaction: any StorageReadTransaction) throws -> Bool {
            guard let record else { return false }
            switch scope(of: record.entity) {
            case .all: return true
            case .none: return false
            case .matching(let filter): return try PredicateEvaluator(transaction).matches(record, filter)
            }
        }
    }
}
