import Strata
import StrataSync

extension SyncServer {
    /// What one request may be sent of each entity: the caller's read scope, narrowed to what the
    /// request's subscriptions cover (everything the scope allows when it names none).
    struct ReadFilter {
        private(set) var view: AccessView
        let coverage: SubscriptionCoverage?

        init(access: SyncAccess, identity: SyncIdentity?, subscriptions: [SyncSubscription]?, schema: Schema) throws {
            self.view = try AccessView(access: access, identity: identity, schema: schema)
            self.coverage = try subscriptions.map { try SubscriptionCoverage($0, schema: schema) }
        }

        /// Reads the records shared with the caller, in the request's transaction.
        mutating func readShares(_ executor: QueryExecutor, in transaction: any StorageReadTransaction) throws {
            try view.readShares(schema: transaction.schema) { try executor.fetch($0, in: transaction) }
        }

        /// Whether anything is filtered at all (a trusted caller without subscriptions reads all).
        var restricts: Bool { view.identity != nil || coverage != nil }

        /// The records of `entity` the request may be sent. The subscriptions' filters are the
        /// caller's: each relationship step in them sees only related records the caller may read
        /// (``AccessView/readableSteps(_:of:schema:)``), so a filter cannot test another
        /// identity's record one prefix at a time.
        func scope(of entity: String, schema: Schema) -> SyncAccess.Scope {
            let scope = view.readScope(of: entity)
            guard let coverage else { return scope }
            guard let written = coverage.filters[entity] else { return .none }
            if written == .constant(true) { return scope }
            let covered = view.readableSteps(written, of: entity, schema: schema)
            switch scope {
            case .none: return .none
            case .all: return .matching(covered)
            case .matching(let filter): return .matching(.and([filter, covered]))
            }
        }

        /// Whether `record` (nil: absent) may be sent.
        func isVisible(_ record: Record?, in transaction: any StorageReadTransaction) throws -> Bool {
            guard let record else { return false }
            return try AccessView.contains(
                scope(of: record.entity, schema: transaction.schema), record, in: transaction)
        }
    }
}
