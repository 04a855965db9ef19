import Strata
import StrataSync

/// What one identity may read and write for the length of one request: ``SyncAccess``'s scopes,
/// widened by the records shared with it.
struct AccessView: Sendable {
    let access: SyncAccess
    let identity: SyncIdentity?
    let trees: ShareTrees
    private(set) var grants = ShareGrants()

    /// The view of `identity` (`nil`: trusted, everything), before its shares are read.
    init(access: SyncAccess, identity: SyncIdentity?, schema: Schema) throws {
        self.access = access
        self.identity = identity
        self.trees = try ShareTrees(access, schema: schema)
    }

    /// Reads the shares naming the identity, through `fetch`, in the request's transaction.
    mutating func readShares(schema: Schema, fetch: (FetchPlan) throws -> [Record]) throws {
        grants = try ShareGrants(for: identity, access: access, schema: schema, fetch: fetch)
    }

    /// The records of `entity` the identity may read: its scope, or shared with it.
    func readScope(of entity: String) -> SyncAccess.Scope {
        widen(access.scope(of: entity, for: identity), trees.filter(for: entity, roots: grants.readable))
    }

    /// The records of `entity` the identity may write: its scope, or shared with it to write.
    func writeScope(of entity: String) -> SyncAccess.Scope {
        widen(access.scope(of: entity, for: identity), trees.filter(for: entity, roots: grants.writable))
    }

    /// A denied entity stays denied; everything else gains what is shared.
    private func widen(_ scope: SyncAccess.Scope, _ shared: FilterExpression?) -> SyncAccess.Scope {
        guard let shared else { return scope }
        switch scope {
        case .all, .none: return scope
        case .matching(let filter): return .matching(.or([filter, shared]))
        }
    }

    /// Whether `record` (nil: absent) is inside `scope`.
    static func contains(
        _ scope: SyncAccess.Scope, _ record: Record?, in transaction: any StorageReadTransaction
    ) throws -> Bool {
        guard let record else { return false }
        switch scope {
        case .all: return true
        case .none: return false
        case .matching(let filter): return try PredicateEvaluator(transaction).matches(record, filter)
        }
    }

    func isReadable(_ record: Record?, in transaction: any StorageReadTransaction) throws -> Bool {
        guard let record else { return false }
        return try Self.contains(readScope(of: record.entity), record, in: transaction)
    }

    func isWritable(_ record: Record?, in transaction: any StorageReadTransaction) throws -> Bool {
        guard let record else { return false }
        return try Self.contains(writeScope(of: record.entity), record, in: transaction)
    }

    /// Whether the identity's own scope holds `record`, shares aside.
    func isInOwnScope(_ record: Record, in transaction: any StorageReadTransaction) throws -> Bool {
        try Self.contains(access.scope(of: record.entity, for: identity), record, in: transaction)
    }
}

extension AccessView {
    /// `filter` over `entity`, written by the caller, with each relationship step narrowed to the
    /// related records the caller may read: an unreadable related record matches nothing — under
    /// `!` as everywhere, so `x` and `!x` answer the same whatever the hidden record holds. The
    /// scopes spliced in are the server's own and are not narrowed again. Bounded by the filter's
    /// nesting (`FilterText.maximumDepth`).
    func readableSteps(_ filter: FilterExpression, of entity: String, schema: Schema) -> FilterExpression {
        switch filter {
        case .and(let parts): return .and(parts.map { readableSteps($0, of: entity, schema: schema) })
        case .or(let parts): return .or(parts.map { readableSteps($0, of: entity, schema: schema) })
        case .not(let inner): return .not(readableSteps(inner, of: entity, schema: schema))
        case .relatedOne(let name, let inner):
            return .relatedOne(relationship: name, readable(inner, through: name, of: entity, schema: schema))
        case .anyRelated(let name, let inner):
            return .anyRelated(relationship: name, readable(inner, through: name, of: entity, schema: schema))
        case .noneRelated(let name, let inner):
            return .noneRelated(relationship: name, readable(inner, through: name, of: entity, schema: schema))
        default: return filter
        }
    }

    /// `inner`, over the destination of `entity`'s relationship `name`, and readable.
    private func readable(_ inner: FilterExpression, through name: String, of entity: String, schema: Schema)
        -> FilterExpression
    {
        guard let destination = schema.entity(entity)?.relationship(name)?.destination else { return .constant(false) }
        let guarded = readableSteps(inner, of: destination, schema: schema)
        switch readScope(of: destination) {
        case .all: return guarded
        case .none: return .constant(false)
        case .matching(let scope): return .and([guarded, scope])
        }
    }
}
