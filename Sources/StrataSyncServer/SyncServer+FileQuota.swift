import Foundation
import Strata

/// The bookkeeping behind ``SyncFileQuota``: an identity's unfinished uploads are its
/// `serverFileUploadPrefix` keys (at most `unfinishedUploads`, each read for the size it declared);
/// its stored bytes are one counter beside an entry per file it uploaded whole, recounted against
/// the files still stored when the server collects (never on a request: a recount reads every
/// entry of the identity, and a request's cost must not grow with what it holds). Every check and change
/// runs inside the transaction that starts or finishes an upload, so two pieces at once cannot
/// both take the last room.
extension SyncServer {
    /// Refuses to start an upload of `file` for the identity hashed `who` when that would put it
    /// over `quota`; unfinished uploads the file store no longer holds are forgotten on the way.
    static func admit(
        _ file: FileReference, who: String, quota: SyncFileQuota, in transaction: any StorageWriteTransaction
    ) throws {
        guard file.size <= quota.storedBytes else {
            throw quotaExceeded(
                "a file of \(file.size) bytes is over the \(quota.storedBytes) bytes one identity may store")
        }
        var (uploads, declared) = (0, Int64(0))
        let prefix = MetadataKeys.serverFileUploadPrefix + who + "."
        for (key, value) in try transaction.metadata(prefix: prefix, after: nil, limit: nil) {
            guard let upload = try FileSpace.upload(String(decoding: value, as: UTF8.self), in: transaction) else {
                try transaction.setMetadata(key, nil)
                continue
            }
            uploads += 1
            declared += upload.expected.flatMap(FileReference.init(text:))?.size ?? upload.received
        }
        guard uploads < quota.unfinishedUploads else {
            throw quotaExceeded(
                "\(uploads) unfinished uploads are the most one identity may have (\(quota.unfinishedUploads)): "
                    + "finish one, or wait until an idle one is collected")
        }
        guard file.size <= quota.unfinishedBytes - declared else {
            throw quotaExceeded(
                "an upload of \(file.size) bytes would put the unfinished uploads over the \(quota.unfinishedBytes) "
                    + "bytes one identity may have under way (\(declared) now)")
        }
        let adds = try transaction.metadata(heldKey(who, file.digest)) == nil ? file.size : 0
        let stored = try storedBytes(who, in: transaction)
        guard adds <= quota.storedBytes - stored else {
            throw quotaExceeded(
                "a file of \(file.size) bytes would put the files this identity uploaded over the "
                    + "\(quota.storedBytes) bytes it may store (\(stored) by the last count; files no record "
                    + "refers to any more stop counting when the server next collects)")
        }
    }

    /// Notes that the identity hashed `who` uploaded `file` whole: it counts for its stored bytes
    /// (once, however often it is uploaded).
    static func recordHeld(_ file: FileReference, who: String, in transaction: any StorageWriteTransaction) throws {
        let key = heldKey(who, file.digest)
        guard try transaction.metadata(key) == nil else { return }
        try transaction.setMetadata(key, Array(String(file.size).utf8))
        let stored = try storedBytes(who, in: transaction)
        try transaction.setMetadata(usageKey(who), Array(String(stored + file.size).utf8))
    }

    /// Sums the identity's entries over the files still stored, forgetting the others (and the
    /// marks that let it read them); returns the new count.
    @discardableResult
    static func recount(_ who: String, in transaction: any StorageWriteTransaction) throws -> Int64 {
        let prefix = MetadataKeys.serverFileHeldPrefix + who + "."
        var stored: Int64 = 0
        for (key, value) in try transaction.metadata(prefix: prefix, after: nil, limit: nil) {
            let digest = String(key.dropFirst(prefix.count))
            if try FileSpace.manifest(digest, in: transaction) != nil {
                stored += Int64(String(decoding: value, as: UTF8.self)) ?? 0
            } else {
                try transaction.setMetadata(key, nil)
                try transaction.setMetadata(MetadataKeys.serverFileHolderPrefix + digest + "." + who, nil)
            }
        }
        try transaction.setMetadata(usageKey(who), stored > 0 ? Array(String(stored).utf8) : nil)
        return stored
    }

    static func storedBytes(_ who: String, in transaction: any StorageReadTransaction) throws -> Int64 {
        try transaction.metadata(usageKey(who)).flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? 0
    }

    static func heldKey(_ who: String, _ digest: String) -> String {
        MetadataKeys.serverFileHeldPrefix + who + "." + digest
    }

    static func usageKey(_ who: String) -> String { MetadataKeys.serverFileUsagePrefix + who }

    static func quotaExceeded(_ message: String) -> StrataError { StrataError(.quotaExceeded, message) }
}
