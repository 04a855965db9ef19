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

        /// The filter with the caller's shares as they stood at `view` (the reader's cursor): a
        /// share the page revokes or changes grants as it was before, one the page grants does
        /// not yet. A record shared with the reader and deleted with its share's revoke on one
        /// page was the reader's at its cursor, and its tombstone goes to it.
        func sharesAsOf(_ view: AtCursor, executor: QueryExecutor) throws -> ReadFilter {
            let changed = view.first.keys.filter { $0.entity == SyncShare.entityName }.sorted { $0.id < $1.id }
            guard let identity = self.view.identity, !changed.isEmpty else { return self }
            var copy = self
            try copy.view.readShares(schema: view.schema) { plan in
                var shares: [RecordKey: Record] = [:]
                for share in try executor.fetch(plan, in: view.readsGoTo) { shares[share.key] = share }
                for key in changed {
                    let then = try view.record(key.entity, id: key.id)
                    shares[key] = then?["participant"] == .string(identity.id) ? then : nil
                }
                return shares.keys.sorted { $0.id < $1.id }.compactMap { shares[$0] }
            }
            return copy
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
