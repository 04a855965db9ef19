import Foundation
import Strata
import StrataSync

/// Serving pulls: the changes after a client's cursor, as the current state of each record,
/// within the caller's read scope.
extension SyncServer {
    public func pull(_ request: PullRequest) async throws -> PullResponse {
        try await pull(request, as: nil)
    }

    /// The changes after the request's cursor that `identity` may read (`nil`: trusted, all).
    ///
    /// With `PullRequest.waitMillis` and nothing to send, waits up to that long (and at most
    /// `maximumWait`) for a commit that brings something in the caller's scope; commits outside
    /// it move the cursor on without answering. `stop` ends the wait early (a server shutting
    /// down), answering with what there is.
    ///
    /// A cursor older than purged history, or of another schema epoch, is
    /// `StrataError.Code.resetRequired`: the client resets from `snapshot(_:as:)`.
    public func pull(
        _ request: PullRequest, as identity: SyncIdentity?, maximumWait: Duration = .seconds(30),
        stop: WaitCancellation? = nil
    ) async throws -> PullResponse {
        try SyncWire.checkVersion("pull", request.version)
        try checkSchemaVersion(request.schemaVersion)
        let wait = min(Duration.milliseconds(max(0, request.waitMillis ?? 0)), maximumWait)
        let deadline = ContinuousClock.now + wait
        var request = request
        while true {
            let (response, head) = try await pullOnce(request, as: identity)
            if !response.changes.isEmpty || response.hasMore || wait == .zero || ContinuousClock.now >= deadline
                || stop?.isCancelled == true
            {
                return response
            }
            // Nothing for this caller yet: wait for the next commit after what was read.
            request.cursor = response.cursor
            let woken = await CommitWaiter.wait(on: store.hub, after: head, until: deadline, stop: stop)
            if !woken {
                return response
            }
        }
    }

    /// One read: the response and the history head it was read at.
    private func pullOnce(_ request: PullRequest, as identity: SyncIdentity?) async throws -> (
        PullResponse, HistoryToken?
    ) {
        let limit = max(1, request.limit)
        let epoch = epoch
        let readFilter = try ReadFilter(
            access: access, identity: identity, subscriptions: request.subscriptions, schema: store.schema)
        let executor = store.executor
        return try await store.backend.read { transaction in
            var filter = readFilter
            try filter.readShares(executor, in: transaction)
            try Self.checkCursor(request.cursor, epoch: epoch, in: transaction)
            if let identity, let owner = try Self.boundIdentity(of: request.clientID, in: transaction),
                owner != identity.id
            {
                throw StrataError(.permissionDenied, "client ID \(request.clientID) belongs to another identity")
            }
            let head = try HistoryLog.lastToken(in: transaction)
            let history = try HistoryLog.read(
                after: request.cursor.map { HistoryToken($0.value) }, limit: limit, in: transaction)
            var order: [RecordKey] = []
            var first: [RecordKey: (token: HistoryToken, kind: HistoryChange.Kind)] = [:]
            var last: [RecordKey: (version: Int64, time: Date)] = [:]
            // Each record's changes after its first: the states before them are ones it had since the cursor.
            var later: [RecordKey: [(token: HistoryToken, kind: HistoryChange.Kind)]] = [:]
            // Records the caller inserted after its cursor: it holds them, whatever it could read then
            // (its insert need not be the ID's first change since: another identity's record of that
            // ID, deleted before, comes first).
            var ownInserts: Set<RecordKey> = []
            for entry in history {
                for change in entry.changes {
                    let key = RecordKey(entity: change.entity, id: change.id)
                    if change.kind == .insert && entry.author == request.clientID { ownInserts.insert(key) }
                    if last[key] == nil {
                        order.append(key)
                        first[key] = (entry.token, change.kind)
                    } else {
                        later[key, default: []].append((entry.token, change.kind))
                    }
                    last[key] = (change.version, entry.timestamp)
                }
            }
            let snapshots = try Self.snapshotViews(
                request.snapshotsAt, cursor: request.cursor.map { HistoryToken($0.value) }, history: history,
                in: transaction)
            var changes: [RemoteChange] = []
            // Changed records the reader could not see at its cursor and sees now.
            var entered: [RecordKey] = []
            changes.reserveCapacity(order.count)
            let records = try Self.records(order, in: transaction)
            let stamps = try transaction.metadata(keys: order.map(Self.stampKey))
            let atCursor = AtCursor(readsGoTo: transaction, first: first)
            let cursorFilter = try filter.sharesAsOf(atCursor, executor: executor)
            for key in order {
                let scope = filter.restricts ? filter.scope(of: key.entity, schema: store.schema) : .all
                if case .none = scope { continue }
                var change = try Self.currentState(
                    key, record: records[key], stamp: stamps[Self.stampKey(key)], lastVersion: last[key]?.version ?? 0,
                    historyTime: last[key]?.time ?? Date(), in: transaction)
                if case .matching = scope {
                    let current = change.values.map { Record(entity: key.entity, id: key.id, values: $0) }
                    let visible = try filter.isVisible(current, in: transaction)
                    if visible,
                        try Self.enteredScope(key, first: first, filter: cursorFilter, atCursor: atCursor, transaction)
                    {
                        entered.append(key)
                    }
                    if !visible {
                        // Not readable now: a removal if the reader could see it at its cursor, or
                        // any state it had since (a snapshot beyond the cursor may have brought
                        // it), or at a snapshot the reader names; a state the server did not keep
                        // counts as seen.
                        guard let (token, kind) = first[key] else { continue }
                        let before = try Self.prior(key, before: token, kind: kind, in: transaction)
                        if case .some(let prior) = before, !ownInserts.contains(key),
                            try !cursorFilter.isVisible(prior, in: atCursor),
                            try !Self.mayHaveHeld(key, later: later[key] ?? [], filter: filter, in: transaction),
                            try !Self.readableInSnapshots(key, views: snapshots, filter: filter)
                        {
                            continue
                        }
                        // Deleted: a tombstone, which the client applies with its delete rules.
                        // Still here but outside the scope or the subscriptions (changed so it no
                        // longer matches): an eviction, removed without them, so nothing the
                        // server keeps is cascaded away or blocks the pull's save on the client.
                        change =
                            change.isTombstone
                            ? RemoteChange(
                                entity: key.entity, recordID: key.id, values: nil, links: [:],
                                serverVersion: change.serverVersion, timestamp: change.timestamp, origin: nil)
                            : .eviction(of: key, serverVersion: change.serverVersion, timestamp: change.timestamp)
                    }
                }
                changes.append(change)
            }
            if filter.restricts {
                let paths = ScopePaths(Self.matchingFilters(filter, schema: store.schema), schema: store.schema)
                changes += try Self.dependents(
                    of: order, first: first, filter: filter, paths: paths, sent: Set(changes.map(\.key)),
                    cursor: request.cursor.map { HistoryToken($0.value) }, snapshots: snapshots,
                    cursorFilter: cursorFilter, in: transaction)
            }
            var listed = Set(changes.map(\.key))
            changes += try Self.listers(of: entered, filter: filter, seen: &listed, in: transaction)
            changes += try Self.shareChanges(
                order, records: records, first: first, filter: filter, executor: executor,
                sent: Set(changes.map(\.key)), in: transaction)
            let cursor =
                history.last.map { SyncCursor($0.token.value, epoch: epoch) }
                ?? request.cursor.map { SyncCursor($0.value, epoch: epoch) }
            return (PullResponse(changes: changes, cursor: cursor, hasMore: history.count == limit), head)
        }
    }

    /// Whether a client at `cursor` can continue from the change feed: not when history it has
    /// not seen was purged, or its cursor is of another schema epoch.
    static func checkCursor(_ cursor: SyncCursor?, epoch: String, in transaction: any StorageReadTransaction) throws {
        if let cursor, let theirs = cursor.epoch, theirs != epoch {
            throw StrataError(
                .resetRequired,
                "the cursor is of schema epoch \(theirs) and the server's is \(epoch): reset from a snapshot")
        }
        // A cursor past the server's history: the server was restored from an older copy.
        if let cursor, cursor.value > (try HistoryLog.lastToken(in: transaction)?.value ?? 0) {
            throw StrataError(
                .resetRequired, "the cursor \(cursor.value) is past this server's history: reset from a snapshot")
        }
        guard let purged = try HistoryLog.purgedBefore(in: transaction), purged.value > 1 else { return }
        if (cursor?.value ?? 0) < purged.value - 1 {
            throw StrataError(
                .resetRequired,
                "history before \(purged.value) was purged and the cursor is at \(cursor?.value ?? 0): "
                    + "reset from a snapshot")
        }
    }

    /// The record's state on the server, or its tombstone.
    /// The records `keys` name that exist, read in one batched lookup per entity rather than one
    /// read each.
    static func records(_ keys: [RecordKey], in transaction: any StorageReadTransaction) throws -> [RecordKey: Record] {
        var ids: [String: [RecordID]] = [:]
        for key in keys { ids[key.entity, default: []].append(key.id) }
        var records: [RecordKey: Record] = [:]
        records.reserveCapacity(keys.count)
        for (entity, list) in ids where transaction.schema.entity(entity) != nil {
            for (id, record) in try transaction.records(entity, ids: list) {
                records[RecordKey(entity: entity, id: id)] = record
            }
        }
        return records
    }

    /// The state of `key` to send: `record` and `stamp` are its committed state and stamp when
    /// already read (`.none`: read them here); no record is a tombstone.
    static func currentState(
        _ key: RecordKey, record: Record??, stamp: [UInt8]?? = .none, lastVersion: Int64, historyTime: Date,
        in transaction: any StorageReadTransaction
    ) throws -> RemoteChange {
        let fallback = HybridTimestamp(millis: Int64(historyTime.timeIntervalSince1970 * 1000), node: "server")
        let stampBytes: [UInt8]? = try stamp ?? transaction.metadata(stampKey(key))
        let (timestamp, origin) = try Self.stamp(stampBytes, otherwise: fallback)
        let read: Record? = try record ?? transaction.record(key.entity, id: key.id)
        guard let record = read, let entity = transaction.schema.entity(key.entity)
        else {
            return RemoteChange(
                entity: key.entity, recordID: key.id, values: nil, links: [:], serverVersion: lastVersion,
                timestamp: timestamp, origin: origin)
        }
        return try state(of: record, entity, timestamp: timestamp, origin: origin, in: transaction)
    }

    /// Who last wrote a record and when (the client's clock), from its stored stamp as pushes
    /// recorded it; for a record only the server wrote, `fallback` and no origin.
    static func stamp(_ stored: [UInt8]?, otherwise fallback: HybridTimestamp) throws -> (HybridTimestamp, String?) {
        guard let bytes = stored else { return (fallback, nil) }
        var reader = BinaryReader(bytes)
        return (HybridTimestamp(try Outbox.readTimestamp(&reader)), try reader.string())
    }

    static func state(
        of record: Record, _ entity: EntityDescription, timestamp: HybridTimestamp, origin: String?,
        in transaction: any StorageReadTransaction
    ) throws -> RemoteChange {
        var links: [String: [RecordID]] = [:]
        for relationship in entity.relationships where relationship.keepsLinkList {
            links[relationship.name] = try transaction.links(
                record.entity, relationship: relationship.name, from: record.id)
        }
        return RemoteChange(
            entity: record.entity, recordID: record.id, values: record.values, links: links,
            serverVersion: record.version,
            timestamp: timestamp, origin: origin)
    }
}
