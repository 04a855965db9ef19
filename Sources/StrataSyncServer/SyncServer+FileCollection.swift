import Foundation
import Strata

/// Collecting what uploads leave behind, on the schedule ``SyncFileCollection`` gives.
extension SyncServer {
    /// What a collection removed: the file store's part (unfinished uploads idle for
    /// `unfinishedFor`, files no record refers to stored before `unreferencedFor`), and the
    /// server's bookkeeping of uploads and files that are gone, so every identity's
    /// ``SyncFileQuota`` counts only what is stored. Bookkeeping is read a page at a time, each in
    /// its own transaction, so a collection never holds the store for long.
    @discardableResult
    public func collectFiles(_ schedule: SyncFileCollection = SyncFileCollection()) async throws
        -> FileStorage.Collected
    {
        let collected = try await store.files.collectGarbage(
            unreferencedFor: schedule.unreferencedFor, unfinishedFor: schedule.unfinishedFor)
        try await forEachPage(of: MetadataKeys.serverFileUploadPrefix) { key, value, transaction in
            if try FileSpace.upload(String(decoding: value, as: UTF8.self), in: transaction) == nil {
                try transaction.setMetadata(key, nil)
            }
        }
        let prefix = MetadataKeys.serverFileHeldPrefix
        try await forEachPage(of: prefix) { key, value, transaction in
            // `who.digest`: both are hex, so the first dot splits them.
            let parts = key.dropFirst(prefix.count).split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return try transaction.setMetadata(key, nil) }
            let (who, digest) = (parts[0], parts[1])
            guard try FileSpace.manifest(digest, in: transaction) == nil else { return }
            try transaction.setMetadata(key, nil)
            try transaction.setMetadata(MetadataKeys.serverFileHolderPrefix + digest + "." + who, nil)
            let left = try Self.storedBytes(who, in: transaction) - (Int64(String(decoding: value, as: UTF8.self)) ?? 0)
            try transaction.setMetadata(Self.usageKey(who), left > 0 ? Array(String(left).utf8) : nil)
        }
        return collected
    }

    /// Calls `body` for every metadata entry under `prefix`, 500 to a write transaction.
    private func forEachPage(
        of prefix: String,
        _ body: @escaping @Sendable (String, [UInt8], any StorageWriteTransaction) throws -> Void
    ) async throws {
        var after: String?
        while true {
            let start = after
            let last = try await store.writeMetadata { transaction -> String? in
                let page = try transaction.metadata(prefix: prefix, after: start, limit: 500)
                for (key, value) in page { try body(key, value, transaction) }
                return page.count == 500 ? page.last?.key : nil
            }
            guard let last else { return }
            after = last
        }
    }
}
