import Foundation
import Strata
import StrataSync

/// Serving snapshots: the whole state in the caller's scope, in pages, for a client that must
/// reset. Each page is one entity's records in ID order after a position — a keyset walk, so a
/// page costs the same however deep it is.
extension SyncServer {
    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        try await snapshot(request, as: nil)
    }

    /// One page of the state `identity` may read (`nil`: trusted, all).
    public func snapshot(_ request: SnapshotRequest, as identity: SyncIdentity?) async throws -> SnapshotResponse {
        try SyncWire.checkVersion("snapshot", request.version)
        try checkSchemaVersion(request.schemaVersion)
        let (epoch, executor) = (epoch, store.executor)
        let filter = try ReadFilter(
            access: access, identity: identity, subscriptions: request.subscriptions, schema: store.schema)
        let limit = max(1, request.limit)
        let entities = store.schema.entities.map(\.name).filter { name in
            if case .none = filter.scope(of: name, schema: store.schema) { return false }
            return true
        }
        guard let first = entities.first else {
            // Subscriptions that cover nothing this caller may read: an empty, final page.
            if let subscription = request.subscriptions?.first {
                return try await store.backend.read { transaction in
                    var page = SnapshotResponse(
                        entity: subscription.entity, records: [], through: nil, next: nil,
                        cursor: try Self.head(epoch: epoch, in: transaction))
                    page.expected = 0
                    return page
                }
            }
            throw StrataError(
                .permissionDenied, "no entity of this store is readable by \(identity?.id ?? "the caller")")
        }
        let position = request.position ?? SnapshotPosition(entity: first)
        guard let index = entities.firstIndex(of: position.entity) else {
            throw StrataError(
                .invalidQuery, entity: position.entity, "the snapshot position names an entity this caller cannot read")
        }
        return try await store.backend.read { transaction in
            var filter = filter
            try filter.readShares(executor, in: transaction)
            if let identity, let owner = try Self.boundIdentity(of: request.clientID, in: transaction),
                owner != identity.id
            {
                throw StrataError(.permissionDenied, "client ID \(request.clientID) belongs to another identity")
            }
            guard let entity = transaction.schema.entity(position.entity) else {
                throw StrataError(
                    .unknownEntity, entity: position.entity, "\(position.entity) is not an entity of this store")
            }
            var parts: [FilterExpression] = []
            if case .matching(let scope) = filter.scope(of: position.entity, schema: store.schema) {
                parts.append(scope)
            }
            if let after = position.after { parts.append(.compare("id", .greater, after.value, [])) }
            let plan = FetchPlan(entity: position.entity, predicate: parts.isEmpty ? nil : .and(parts), limit: limit)
            let records = try executor.fetch(plan, in: transaction)
            let stamps = try transaction.metadata(keys: records.map { Self.stampKey($0.key) })
            let changes = try records.map { record in
                let (timestamp, origin) = try Self.stamp(
                    stamps[Self.stampKey(record.key)], otherwise: HybridTimestamp(millis: 0, node: "server"))
                return try Self.state(of: record, entity, timestamp: timestamp, origin: origin, in: transaction)
            }
            let head = try Self.head(epoch: epoch, in: transaction)
            var page: SnapshotResponse
            if records.count == limit, let last = records.last {
                page = SnapshotResponse(
                    entity: position.entity, records: changes, through: last.id,
                    next: SnapshotPosition(entity: position.entity, after: last.id), cursor: head)
            } else {
                let next = index + 1 < entities.count ? SnapshotPosition(entity: entities[index + 1]) : nil
                page = SnapshotResponse(
                    entity: position.entity, records: changes, through: nil, next: next, cursor: head)
            }
            // The first page says how many records the whole snapshot holds, for progress.
            if request.position == nil {
                page.expected = try entities.reduce(0) { total, name in
                    var predicate: FilterExpression?
                    if case .matching(let part) = filter.scope(of: name, schema: store.schema) { predicate = part }
                    return total + (try executor.count(FetchPlan(entity: name, predicate: predicate), in: transaction))
                }
            }
            return page
        }
    }

    /// The cursor at the head of the server's history.
    static func head(epoch: String, in transaction: any StorageReadTransaction) throws -> SyncCursor {
        try HistoryLog.lastToken(in: transaction).map { SyncCursor($0.value, epoch: epoch) }
            ?? SyncCursor(0, epoch: epoch)
    }
}
