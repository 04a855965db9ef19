import Foundation

/// Where history lives in a backend's metadata space, and how it is read and purged.
package enum HistoryLog {
    package static let lastTokenKey = HistoryToken.lastTokenMetadataKey
    package static let entryPrefix = MetadataKeys.historyEntryPrefix

    static func key(_ token: HistoryToken) -> String { entryPrefix + digits(token) }

    package static func lastToken(in transaction: any StorageReadTransaction) throws -> HistoryToken? {
        try HistoryToken.newest(in: transaction)
    }

    static func append(
        _ changes: [HistoryChange], author: String?, contextName: String?, to transaction: any StorageWriteTransaction
    ) throws -> HistoryToken {
        let token = HistoryToken((try lastToken(in: transaction)?.value ?? 0) + 1)
        let entry = HistoryTransaction(
            token: token, timestamp: Date(), author: author, contextName: contextName, changes: changes)
        try transaction.setMetadata(key(token), HistoryCodec.encode(entry))
        try transaction.setMetadata(lastTokenKey, Array(String(token.value).utf8))
        return token
    }

    package static func read(after token: HistoryToken?, limit: Int?, in transaction: any StorageReadTransaction) throws
        -> [HistoryTransaction]
    {
        try transaction.metadata(prefix: entryPrefix, after: token.map(key), limit: limit).map { entry in
            do {
                return try HistoryCodec.decode(entry.value)
            } catch let error as StrataError {
                throw StrataError(.corruptStore, underlying: error, "history entry \(entry.key) is unreadable")
            }
        }
    }

    package static func purge(before token: HistoryToken, in transaction: any StorageWriteTransaction) throws -> Int {
        let purged = try removeEntries(prefix: entryPrefix, before: key(token), in: transaction)
        if purged > 0 {
            // A sync server answers a cursor older than this with a reset.
            try transaction.setMetadata(purgedBeforeKey, Array(String(token.value).utf8))
        }
        return purged
    }

    package static let purgedBeforeKey = MetadataKeys.historyPurgedBefore

    /// The token history was last purged before: entries older than it are gone.
    package static func purgedBefore(in transaction: any StorageReadTransaction) throws -> HistoryToken? {
        guard let bytes = try transaction.metadata(purgedBeforeKey) else { return nil }
        guard let text = String(bytes: bytes, encoding: .utf8), let value = Int64(text) else {
            throw StrataError(.corruptStore, "history purge marker is unreadable")
        }
        return HistoryToken(value)
    }

    package static func digits(_ token: HistoryToken) -> String {
        let digits = String(token.value)
        return String(repeating: "0", count: max(0, 19 - digits.count)) + digits
    }

    /// Removes the metadata entries under `prefix` whose keys sort before `bound`; returns how many.
    package static func removeEntries(prefix: String, before bound: String, in transaction: any StorageWriteTransaction)
        throws -> Int
    {
        var removed = 0
        while true {
            let batch = try transaction.metadata(prefix: prefix, after: nil, limit: 512)
            let old = batch.filter { $0.key < bound }
            for entry in old { try transaction.setMetadata(entry.key, nil) }
            removed += old.count
            if old.count < batch.count || batch.isEmpty { return removed }
        }
    }
}
