import Foundation

/// Where a store keeps file bytes: its metadata space, so they are transactional with the records
/// on every backend and travel with them. A file is a *manifest* per digest naming a *blob* — the
/// chunks of `chunkSize` bytes one upload wrote — and a reference count per digest kept by every
/// save (`SaveSession.updateFileReferences`). An upload's blob becomes the file's when it finishes;
/// an upload of bytes already stored is dropped. Everything here runs inside a transaction it is
/// given, synchronously.
package enum FileSpace {
    /// The size of every chunk but a file's last.
    package static let chunkSize = 262_144

    /// What a stored file is made of.
    package struct Manifest: Codable, Sendable, Equatable {
        /// Bytes in the file.
        var size: Int64
        /// Chunks in its blob.
        var chunks: Int
        /// The blob holding the chunks.
        var blob: String
        /// When it was finished (seconds since 2001), for garbage collection.
        var created: Double

        /// How many bytes chunk `index` holds.
        func length(ofChunk index: Int) -> Int {
            index < chunks - 1 ? chunkSize : Int(size - Int64(chunks - 1) * Int64(chunkSize))
        }
    }

    /// An unfinished upload.
    package struct Upload: Codable, Sendable, Equatable {
        /// Bytes in whole chunks, all hashed.
        var hashed: Int64
        /// Bytes in the partial chunk after them (not hashed yet: the running hash is saved at whole
        /// blocks only).
        var tail: Int
        /// The running SHA-256 state after `hashed` bytes.
        var hash: Data
        /// The file the uploader said it sends, checked when it finishes.
        package var expected: String?
        /// When it last received bytes (seconds since 2001), for garbage collection.
        var updated: Double

        package var received: Int64 { hashed + Int64(tail) }
    }

    static func manifestKey(_ digest: String) -> String { MetadataKeys.fileManifestPrefix + digest }
    static func referencesKey(_ digest: String) -> String { MetadataKeys.fileReferencesPrefix + digest }
    static func missingKey(_ digest: String) -> String { MetadataKeys.fileMissingPrefix + digest }
    static func uploadKey(_ blob: String) -> String { MetadataKeys.fileUploadPrefix + blob }
    static func chunkKey(_ blob: String, _ index: Int) -> String {
        let digits = String(index)
        return MetadataKeys.fileChunkPrefix + blob + "." + String(repeating: "0", count: max(0, 10 - digits.count))
            + digits
    }

    static func damaged(_ what: String, _ digest: String) -> StrataError {
        StrataError(.corruptStore, "file sha256:\(digest): \(what)")
    }

    /// The manifest of the file with this digest, or nil when its bytes are not here.
    package static func manifest(_ digest: String, in transaction: any StorageReadTransaction) throws -> Manifest? {
        guard let bytes = try transaction.metadata(manifestKey(digest)) else { return nil }
        guard let manifest = try? JSONDecoder().decode(Manifest.self, from: Data(bytes)), manifest.size >= 0,
            manifest.chunks == (manifest.size == 0 ? 0 : Int((manifest.size - 1) / Int64(chunkSize)) + 1)
        else { throw damaged("its manifest is unreadable", digest) }
        return manifest
    }

    /// How many record properties refer to the file.
    package static func references(_ digest: String, in transaction: any StorageReadTransaction) throws -> Int64 {
        guard let bytes = try transaction.metadata(referencesKey(digest)) else { return 0 }
        guard let count = Int64(String(decoding: bytes, as: UTF8.self)), count > 0 else {
            throw damaged("its reference count is unreadable", digest)
        }
        return count
    }

    /// Chunk `index` of `manifest`, checked for its length.
    static func chunk(
        _ index: Int, of manifest: Manifest, digest: String, in transaction: any StorageReadTransaction
    ) throws -> [UInt8] {
        guard let bytes = try transaction.metadata(chunkKey(manifest.blob, index)) else {
            throw damaged("chunk \(index) of \(manifest.chunks) is missing", digest)
        }
        guard bytes.count == manifest.length(ofChunk: index) else {
            throw damaged(
                "chunk \(index) holds \(bytes.count) bytes, not \(manifest.length(ofChunk: index))", digest)
        }
        return bytes
    }

    /// Adds `deltas` (per file) to the reference counts, which are kept per digest. A file no
    /// record refers to any more is freed in the same transaction; a file records start referring
    /// to whose bytes are not here is marked missing (what a sync client downloads).
    static func adjustReferences(_ deltas: [FileReference: Int64], in transaction: any StorageWriteTransaction) throws {
        for (file, delta) in deltas.sorted(by: { $0.key.text < $1.key.text }) where delta != 0 {
            let digest = file.digest
            let before = try references(digest, in: transaction)
            let count = before + delta
            if count > 0 {
                try transaction.setMetadata(referencesKey(digest), Array(String(count).utf8))
                if before == 0, try manifest(digest, in: transaction) == nil {
                    try transaction.setMetadata(missingKey(digest), Array(file.text.utf8))
                }
            } else {
                try transaction.setMetadata(referencesKey(digest), nil)
                try transaction.setMetadata(missingKey(digest), nil)
                try free(digest, in: transaction)
            }
        }
    }

    /// Removes the file's bytes and manifest (nothing when they are not here).
    static func free(_ digest: String, in transaction: any StorageWriteTransaction) throws {
        guard let manifest = try manifest(digest, in: transaction) else { return }
        try removeChunks(of: manifest.blob, count: manifest.chunks, in: transaction)
        try transaction.setMetadata(manifestKey(digest), nil)
    }

    static func removeChunks(of blob: String, count: Int, in transaction: any StorageWriteTransaction) throws {
        for index in 0..<count { try transaction.setMetadata(chunkKey(blob, index), nil) }
    }

    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] { Array(try JSONEncoder().encode(value)) }
}
