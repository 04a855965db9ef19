import Foundation

/// Serving pulls: the changes after a client's cursor, as the current state of each record.
extension SyncServer {
    public func pull(_ request: PullRequest) async throws -> PullResponse {
        guard request.version == PullRequest.currentVersion else {
            throw StrataError(.unsupportedStore, "pull format version \(request.version) is not supported (this server speaks \(PullRequest.currentVersion))")
        }
        try checkSchemaVersion(request.schemaVersion)
        let limit = max(1, request.limit)
        return try await store.backend.read { transaction in
            let history = try HistoryLog.read(after: request.cursor.map { HistoryToken($0.value) }, limit: limit, in: transaction)
            var order: [RecordKey] = []
            var last: [RecordKey: (version: Int64, time: Date)] = [:]
            for entry in history {
                for change in entry.changes {
                    let key = RecordKey(entity: change.entity, id: change.id)
                    if last[key] == nil { order.append(key) }
                    last[key] = (change.version, entry.timestamp)
                }
            }
            let changes = try order.map { key in
                try Self.currentState(key, lastVersion: last[key]?.version ?? 0, historyTime: last[key]?.time ?? Date(), in: transaction)
            }
            let cursor = history.last.map { SyncCursor($0.token.value) } ?? request.cursor
            return PullResponse(changes: changes, cursor: cursor, hasMore: history.count == limit)
        }
    }

    /// The record's state on the server, or its tombstone.
    static func currentState(_ key: RecordKey, lastVersion: Int64, historyTime: Date, in transaction: any StorageReadTransaction) throws -> RemoteChange {
        var timestamp = HybridTimestamp(millis: Int64(historyTime.timeIntervalSince1970 * 1000), node: "server")
        var origin: String?
        if let bytes = try transaction.metadata(stampKey(key)) {
            var reader = BinaryReader(bytes)
            timestamp = try Outbox.readTimestamp(&reader)
            origin = try reader.string()
        }
        guard let record = try transaction.record(key.entity, id: key.id), let entity = transaction.schema.entity(key.entity) else {
            return RemoteChange(entity: key.entity, recordID: key.id, values: nil, links: [:], serverVersion: lastVersion, timestamp: timestamp, origin: origin)
        }
        var links: [String: [RecordID]] = [:]
        for relationship in entity.relationships where relationship.keepsLinkList {
            links[relationship.name] = try transaction.links(key.entity, relationship: relationship.name, from: key.id)
        }
        return RemoteChange(
            entity: key.entity, recordID: key.id, values: record.values, links: links, serverVersion: record.version,
            timestamp: timestamp, origin: origin)
    }
}
