import Foundation

/// Uploads: bytes arrive in pieces of any size, each piece in its own transaction, and are stored
/// as whole chunks plus one partial chunk, hashed as whole chunks fill. A process killed between
/// pieces loses nothing acknowledged: the upload resumes at `received`.
extension FileSpace {
    /// What finishing an upload came to.
    package enum Finished: Sendable {
        /// The file is stored (the upload's blob, or the same bytes stored before).
        case stored(FileReference)
        /// The bytes were not the file the uploader said; the upload was dropped.
        case mismatch(expected: String, received: FileReference)
    }

    /// Starts an upload; returns its blob.
    static func begin(expecting expected: FileReference?, in transaction: any StorageWriteTransaction) throws -> String
    {
        let blob = UUID().uuidString.lowercased()
        let upload = Upload(
            hashed: 0, tail: 0, hash: Data(SHA256().saved ?? []), expected: expected?.text,
            updated: Date().timeIntervalSinceReferenceDate)
        try transaction.setMetadata(uploadKey(blob), try encode(upload))
        return blob
    }

    /// The upload's state, or nil when there is no such upload (finished, dropped or collected).
    package static func upload(_ blob: String, in transaction: any StorageReadTransaction) throws -> Upload? {
        guard let bytes = try transaction.metadata(uploadKey(blob)) else { return nil }
        guard let upload = try? JSONDecoder().decode(Upload.self, from: Data(bytes)), upload.hashed >= 0,
            upload.hashed % Int64(chunkSize) == 0, (0..<chunkSize).contains(upload.tail),
            SHA256(saved: Array(upload.hash))?.count == upload.hashed
        else { throw StrataError(.corruptStore, "upload \(blob): its state is unreadable") }
        return upload
    }

    static func requireUpload(_ blob: String, in transaction: any StorageReadTransaction) throws -> Upload {
        guard let upload = try upload(blob, in: transaction) else {
            throw StrataError(.notFound, "no upload \(blob): it finished, was cancelled or was collected")
        }
        return upload
    }

    /// Appends `bytes` at `offset` (which must be what the upload received so far); returns the
    /// bytes received after them.
    static func append(
        _ bytes: some Collection<UInt8>, at offset: Int64, to blob: String,
        in transaction: any StorageWriteTransaction
    ) throws -> Int64 {
        var upload = try requireUpload(blob, in: transaction)
        guard offset == upload.received else {
            throw StrataError(
                .versionMismatch,
                "upload \(blob) has received \(upload.received) bytes; a piece at \(offset) does not follow")
        }
        if let expected = upload.expected.flatMap(FileReference.init(text:)),
            upload.received + Int64(bytes.count) > expected.size
        {
            throw StrataError(
                .validationFailed, "upload \(blob): more than the \(expected.size) bytes of \(expected) were sent")
        }
        var index = Int(upload.hashed / Int64(chunkSize))
        var pending: [UInt8]
        if upload.tail > 0 {
            pending = try transaction.metadata(chunkKey(blob, index)) ?? []
            guard pending.count == upload.tail else {
                throw StrataError(.corruptStore, "upload \(blob): its partial chunk holds \(pending.count) bytes")
            }
            pending.append(contentsOf: bytes)
        } else {
            pending = Array(bytes)
        }
        guard var hasher = SHA256(saved: Array(upload.hash)) else {
            throw StrataError(.corruptStore, "upload \(blob): its running hash is unreadable")
        }
        var start = 0
        while pending.count - start >= chunkSize {
            let chunk = pending[start..<start + chunkSize]
            // A piece of exactly one chunk is stored as it came (no second copy).
            try transaction.setMetadata(chunkKey(blob, index), chunk.count == pending.count ? pending : Array(chunk))
            hasher.update(chunk)
            index += 1
            start += chunkSize
        }
        let tail = pending[start...]
        if !tail.isEmpty { try transaction.setMetadata(chunkKey(blob, index), Array(tail)) }
        upload.hashed = hasher.count
        upload.tail = tail.count
        upload.hash = Data(hasher.saved ?? [])
        upload.updated = Date().timeIntervalSinceReferenceDate
        try transaction.setMetadata(uploadKey(blob), try encode(upload))
        return upload.received
    }

    /// Finishes the upload: the file it holds, stored once per digest.
    static func finish(_ blob: String, in transaction: any StorageWriteTransaction) throws -> Finished {
        let upload = try requireUpload(blob, in: transaction)
        guard var hasher = SHA256(saved: Array(upload.hash)) else {
            throw StrataError(.corruptStore, "upload \(blob): its running hash is unreadable")
        }
        let chunks = Int(upload.hashed / Int64(chunkSize)) + (upload.tail > 0 ? 1 : 0)
        if upload.tail > 0 {
            let tail = try transaction.metadata(chunkKey(blob, chunks - 1)) ?? []
            guard tail.count == upload.tail else {
                throw StrataError(.corruptStore, "upload \(blob): its partial chunk holds \(tail.count) bytes")
            }
            hasher.update(tail)
        }
        try transaction.setMetadata(uploadKey(blob), nil)
        guard let file = FileReference(digest: hasher.finish(), size: upload.received) else {
            throw StrataError(.storageFailure, "upload \(blob): no reference for its bytes")
        }
        if let expected = upload.expected, expected != file.text {
            try removeChunks(of: blob, count: chunks, in: transaction)
            return .mismatch(expected: expected, received: file)
        }
        if try manifest(file.digest, in: transaction) != nil {
            try removeChunks(of: blob, count: chunks, in: transaction)
        } else {
            let manifest = Manifest(
                size: file.size, chunks: chunks, blob: blob, created: Date().timeIntervalSinceReferenceDate)
            try transaction.setMetadata(manifestKey(file.digest), try encode(manifest))
            try transaction.setMetadata(missingKey(file.digest), nil)
        }
        return .stored(file)
    }

    /// Drops an unfinished upload and its chunks (nothing when there is none).
    static func cancel(_ blob: String, in transaction: any StorageWriteTransaction) throws {
        guard let upload = try upload(blob, in: transaction) else { return }
        let chunks = Int(upload.hashed / Int64(chunkSize)) + (upload.tail > 0 ? 1 : 0)
        try removeChunks(of: blob, count: chunks, in: transaction)
        try transaction.setMetadata(uploadKey(blob), nil)
    }
}
