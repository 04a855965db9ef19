import Foundation
import Strata
import StrataSync

/// What a change of shares in the change feed brings a participant: the records a new share
/// reaches (they did not change, so the feed alone would not carry them), and evictions of those
/// a revoked share reached that the participant may no longer read.
extension SyncServer {
    /// The shared records that arrive with, and the evictions that follow from, the changes of
    /// shares naming the reader among `keys`; records in `sent` are left out.
    static func shareChanges(
        _ keys: [RecordKey], records: [RecordKey: Record],
        first: [RecordKey: (token: HistoryToken, kind: HistoryChange.Kind)], filter: ReadFilter,
        executor: QueryExecutor, sent: Set<RecordKey>, in transaction: any StorageReadTransaction
    ) throws -> [RemoteChange] {
        guard let identity = filter.view.identity, !filter.view.access.shareables.isEmpty else { return [] }
        var arriving: [String: [RecordID]] = [:]
        var leaving: [String: [RecordID]] = [:]
        for key in keys where key.entity == SyncShare.entityName {
            let now = sharedRoot(records[key], with: identity, in: transaction)
            guard let (token, kind) = first[key] else { continue }
            // A share's state the server did not keep: nothing known to revoke.
            let before: SharedRecord? =
                switch try prior(key, before: token, kind: kind, in: transaction) {
                case .some(let record): sharedRoot(record, with: identity, in: transaction)
                case .none: nil
                }
            if let now, now != before { arriving[now.entity, default: []].append(now.id) }
            if let before, before != now { leaving[before.entity, default: []].append(before.id) }
        }
        var changes: [RemoteChange] = []
        var seen = sent
        // Arrived, whether or not the page sends them for a change of their own.
        var arrived: [RecordKey] = []
        for record in try treeRecords(of: arriving, filter: filter, executor: executor, in: transaction) {
            guard try filter.isVisible(record, in: transaction) else { continue }
            arrived.append(record.key)
            guard seen.insert(record.key).inserted else { continue }
            changes.append(
                try currentState(
                    record.key, record: record, lastVersion: record.version, historyTime: Date(), in: transaction))
        }
        changes += try listers(of: arrived, filter: filter, seen: &seen, in: transaction)
        let now = HybridTimestamp(millis: Int64(Date().timeIntervalSince1970 * 1000), node: "server")
        for record in try treeRecords(of: leaving, filter: filter, executor: executor, in: transaction) {
            guard try !filter.isVisible(record, in: transaction), seen.insert(record.key).inserted else { continue }
            changes.append(.eviction(of: record.key, serverVersion: record.version, timestamp: now))
        }
        return changes
    }

    /// The record a share grants `identity`, when it is a share naming it as participant.
    private static func sharedRoot(
        _ share: Record?, with identity: SyncIdentity, in transaction: any StorageReadTransaction
    ) -> SharedRecord? {
        guard let share, share["participant"] == .string(identity.id) else { return nil }
        return SharedRecord(share, schema: transaction.schema)
    }

    /// Every record the shares of `roots` reach, as the server holds them now: the shared records,
    /// then each included path's, one query per entity (the routes compare references directly).
    private static func treeRecords(
        of roots: [String: [RecordID]], filter: ReadFilter, executor: QueryExecutor,
        in transaction: any StorageReadTransaction
    ) throws -> [Record] {
        guard !roots.isEmpty else { return [] }
        var records: [Record] = []
        for entity in transaction.schema.entities.map(\.name) {
            guard let reach = filter.view.trees.filter(for: entity, roots: roots) else { continue }
            records += try executor.fetch(FetchPlan(entity: entity, predicate: reach), in: transaction)
        }
        return records
    }
}
