import Foundation

/// Where history lives in a backend's metadata space, and how it is read and purged.
enum HistoryLog {
    static let lastTokenKey = "strata.history.last"
    static let entryPrefix = "strata.history.entry."

    static func key(_ token: HistoryToken) -> String {
        let digits = String(token.value)
        return entryPrefix + String(repeating: "0", count: max(0, 19 - digits.count)) + digits
    }

    static func lastToken(in transaction: any StorageReadTransaction) throws -> HistoryToken? {
        guard let bytes = try transaction.metadata(lastTokenKey) else { return nil }
        guard let text = String(bytes: bytes, encoding: .utf8), let value = Int64(text) else {
            throw StrataError(.corruptStore, "history counter is unreadable")
        }
        return HistoryToken(value)
    }

    static func append(_ changes: [HistoryChange], author: String?, contextName: String?, to transaction: any StorageWriteTransaction) throws -> HistoryToken {
        let token = HistoryToken((try lastToken(in: transaction)?.value ?? 0) + 1)
        let entry = HistoryTransaction(token: token, timestamp: Date(), author: author, contextName: contextName, changes: changes)
        try transaction.setMetadata(key(token), HistoryCodec.encode(entry))
        try transaction.setMetadata(lastTokenKey, Array(String(token.value).utf8))
        return token
    }

    static func read(after token: HistoryToken?, limit: Int?, in transaction: any StorageReadTransaction) throws -> [HistoryTransaction] {
        try transaction.metadata(prefix: entryPrefix, after: token.map(key), limit: limit).map { entry in
            do {
                return try HistoryCodec.decode(entry.value)
            } catch let error as StrataError {
                throw StrataError(.corruptStore, underlying: error, "history entry \(entry.key) is unreadable")
            }
        }
    }

    static func purge(before token: HistoryToken, in transaction: any StorageWriteTransaction) throws -> Int {
        var purged = 0
        while true {
            let batch = try transaction.metadata(prefix: entryPrefix, after: nil, limit: 512)
            let old = batch.filter { $0.key < key(token) }
            for entry in old { try transaction.setMetadata(entry.key, nil) }
            purged += old.count
            if old.count < batch.count || batch.isEmpty { return purged }
        }
    }
}
