import Foundation
import Strata

/// Resetting from a snapshot when the server can no longer serve the client's cursor (its history
/// was purged past it, or its schema epoch changed).
///
/// Each page is applied in one local save together with a marker saying where the next page
/// starts, so a crash between pages resumes at the next page. A page covers one entity's IDs up to
/// `through`: local records of that entity in the same ID range that the page does not hold are
/// removed (the server no longer has them, or they left this identity's scope) — except those with
/// mutations still waiting in the outbox, which are pushed as they are. After the last page the
/// cursor the first page gave is stored and pulling resumes from it, bringing what changed while
/// the pages were read.
extension SyncEngine {
    func resetFromSnapshot() async throws -> Int {
        let (configuration, options, executor) = (configuration, options, store.executor)
        var applied = 0
        var expected: Int?
        let bytesBefore = bytesMoved.received
        while true {
            let (stored, book) = try await store.backend.read {
                (try ResetState.read($0), try SubscriptionBook.read($0))
            }
            let state = stored ?? ResetState(position: nil, cursor: nil)
            let request = SnapshotRequest(
                clientID: configuration.clientID, position: state.position, limit: options.pullLimit,
                schemaVersion: store.schema.version, subscriptions: book.map { $0.active.map(\.served) })
            let page = try await call {
                attempts += 1
                return try await remote.snapshot(request)
            }
            let finished = try await store.commit(
                author: nil, contextName: "sync", participants: [],
                stage: { session, reader -> SyncApplier? in
                    // Another run may have applied this page meanwhile.
                    guard try ResetState.read(reader)?.position == state.position else { return nil }
                    var applier = SyncApplier(session: session, configuration: configuration)
                    try Self.stage(
                        page, after: state.position, in: reader, executor: executor, options: options,
                        into: &applier)
                    return applier
                }
            ) { applier, _, transaction -> Bool in
                guard let applier else { return false }
                try Outbox.observe(page.records.map(\.timestamp), in: transaction)
                try applier.finish(in: transaction)
                try OwnerRefresh.note(applier.misplacedOwners, in: transaction)
                let cursor = state.cursor ?? page.cursor
                // Pages after the first are read at later heads: what they bring may be newer than
                // the cursor (the first page's). Tokens noted before the reset are of its old history.
                if state.cursor == nil { try SnapshotsAhead.clear(transaction) }
                if !page.records.isEmpty, let token = page.cursor?.value {
                    try SnapshotsAhead.note(token, past: cursor, in: transaction)
                }
                if let next = page.next {
                    try ResetState(position: next, cursor: cursor).write(transaction)
                    return false
                }
                try ResetState.clear(transaction)
                if let cursor { try Outbox.setCursor(cursor, in: transaction) }
                // The snapshot brought every subscription's records: no initial sync is owed.
                if var book = try SubscriptionBook.read(transaction) {
                    book.bootstraps.removeAll()
                    for index in book.entries.indices { book.entries[index].ready = true }
                    try book.write(transaction)
                }
                return true
            }
            applied += page.records.count
            expected = expected ?? page.expected
            status.download = SyncProgress(
                phase: .resetting, expected: expected.map { max($0, applied) }, completed: applied,
                bytes: bytesMoved.received - bytesBefore)
            publish()
            if finished {
                status.resets += 1
                publish()
                return applied
            }
        }
    }
}

/// Where an unfinished reset stands, in the client's metadata: the next page and the cursor the
/// first page gave.
package struct ResetState: Equatable {
    static let key = MetadataKeys.syncReset
    var position: SnapshotPosition?
    var cursor: SyncCursor?

    package static func read(_ transaction: any StorageReadTransaction) throws -> ResetState? {
        guard let bytes = try transaction.metadata(key) else { return nil }
        var reader = BinaryReader(bytes)
        var state = ResetState()
        if try reader.byte() == 1 {
            let entity = try reader.string()
            state.position = SnapshotPosition(
                entity: entity, after: try reader.byte() == 1 ? try reader.recordID() : nil)
        }
        if try reader.byte() == 1 {
            let value = try reader.signed()
            state.cursor = SyncCursor(value, epoch: try reader.optionalString())
        }
        return state
    }

    func write(_ writer: any StorageWriteTransaction) throws {
        var bytes = BinaryWriter()
        bytes.byte(position == nil ? 0 : 1)
        if let position {
            bytes.string(position.entity)
            bytes.byte(position.after == nil ? 0 : 1)
            if let after = position.after { bytes.recordID(after) }
        }
        bytes.byte(cursor == nil ? 0 : 1)
        if let cursor {
            bytes.signed(cursor.value)
            bytes.optionalString(cursor.epoch)
        }
        try writer.setMetadata(Self.key, bytes.bytes)
    }

    static func clear(_ writer: any StorageWriteTransaction) throws {
        try writer.setMetadata(key, nil)
    }
}

extension SyncEngine {
    /// Stages one snapshot page: the server's records (resolved against pending local mutations),
    /// and the deletion of local records in the page's range the server no longer has.
    static func stage(
        _ page: SnapshotResponse, after position: SnapshotPosition?, in reader: any StorageReadTransaction,
        executor: QueryExecutor, options: Options, into applier: inout SyncApplier
    ) throws {
        let pending = try pendingMutations(in: reader)
        // What this page's range holds locally, before anything is staged.
        var range: [FilterExpression] = []
        if let after = position?.entity == page.entity ? position?.after : nil {
            range.append(.compare("id", .greater, after.value, []))
        }
        if let through = page.through { range.append(.compare("id", .lessOrEqual, through.value, [])) }
        let local = try executor.fetch(
            FetchPlan(entity: page.entity, predicate: range.isEmpty ? nil : .and(range)), in: reader)
        let kept = Set(page.records.map(\.recordID))
        try stage(page.records, in: reader, options: options, into: &applier)
        for record in local where !kept.contains(record.id) && pending[record.key] == nil {
            try applier.applyServerState(
                RemoteChange(
                    entity: record.entity, recordID: record.id, values: nil, links: [:], serverVersion: 0,
                    timestamp: HybridTimestamp(millis: 0, node: "server"), origin: nil))
        }
        try applier.finishLinks()
    }
}
