import Foundation

/// A file being stored piece by piece (``FileStorage/startUpload(expecting:)``). Each `append`
/// is durable when it returns, so an upload cut off — a crash, a lost connection — resumes where
/// it stopped: find it again with ``FileStorage/upload(_:)`` by its ``id`` and append from
/// ``received``.
public struct FileUpload: Sendable {
    let store: Store
    /// The upload's ID, to resume it.
    public let id: String
    /// Bytes received and stored so far.
    public private(set) var received: Int64

    /// Appends `bytes` after what was received; durable when it returns.
    public mutating func append(_ bytes: Data) async throws {
        let (id, offset) = (id, received)
        received = try await store.writeMetadata { transaction in
            try FileSpace.append(bytes, at: offset, to: id, in: transaction)
        }
    }

    /// Appends `bytes` at `offset`, which must equal what the upload has received (a client that
    /// resends a piece the store already holds is told with `StrataError.Code.versionMismatch`).
    /// Returns the bytes received after them.
    @discardableResult
    public mutating func append(_ bytes: Data, at offset: Int64) async throws -> Int64 {
        let id = id
        received = try await store.writeMetadata { transaction in
            try FileSpace.append(bytes, at: offset, to: id, in: transaction)
        }
        return received
    }

    /// Finishes the upload and returns the file it holds. Bytes the store already holds are kept
    /// once. When the upload was started expecting a file and the bytes are another, the upload is
    /// dropped and `StrataError.Code.validationFailed` names both.
    public func finish() async throws -> FileReference {
        let id = id
        let finished = try await store.writeMetadata { try FileSpace.finish(id, in: $0) }
        switch finished {
        case .stored(let file):
            return file
        case .mismatch(let expected, let received):
            throw StrataError(
                .validationFailed, "upload \(id): the bytes received are \(received), not \(expected); dropped")
        }
    }

    /// Drops the upload and what it received.
    public func cancel() async throws {
        let id = id
        try await store.writeMetadata { try FileSpace.cancel(id, in: $0) }
    }
}

extension FileStorage {
    /// The unfinished upload whose ID is kept under the metadata `key` (a sync server's upload for
    /// one identity, a sync client's download), or a new one expecting `file`, its ID kept there.
    /// `admit` runs in the transaction that starts a new upload, before it does (a quota's check:
    /// a throw starts nothing); an upload that is resumed is not admitted again.
    package func upload(
        recordedAt key: String, expecting file: FileReference,
        admit: @escaping @Sendable (any StorageWriteTransaction) throws -> Void = { _ in }
    ) async throws -> FileUpload {
        if let found = try await recordedUpload(at: key) { return found }
        let id = try await store.writeMetadata { transaction -> String in
            if let bytes = try transaction.metadata(key), case let id = String(decoding: bytes, as: UTF8.self),
                try FileSpace.upload(id, in: transaction) != nil
            {
                return id
            }
            try admit(transaction)
            let id = try FileSpace.begin(expecting: file, in: transaction)
            try transaction.setMetadata(key, Array(id.utf8))
            return id
        }
        return try await upload(id) ?? FileUpload(store: store, id: id, received: 0)
    }

    private func recordedUpload(at key: String) async throws -> FileUpload? {
        guard let bytes = try await store.backend.read({ try $0.metadata(key) }) else { return nil }
        return try await upload(String(decoding: bytes, as: UTF8.self))
    }
}
