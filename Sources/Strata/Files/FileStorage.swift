import Foundation

/// A store's files: bytes kept beside the records, once per SHA-256 digest, streamed in and out in
/// chunks of 256 KiB so a file is never held in memory whole. A record refers to a file through an
/// attribute of type `FileReference`; the bytes go when the last record referring to them does —
/// deleted, cascaded, or changed to another file — in the same save.
///
/// Writing a file and saving the record that refers to it are two steps: a file no record refers
/// to is kept for a grace period and then removed by ``collectGarbage(unreferencedFor:)``.
/// Get it with `store.files`; the article <doc:Files> has an example.
public struct FileStorage: Sendable {
    let store: Store

    /// How many bytes one stored chunk holds (the last chunk of a file may hold fewer).
    public static let chunkSize = FileSpace.chunkSize

    /// Stores `data` (a small file; larger ones stream with ``write(contentsOf:)-(URL)``).
    @discardableResult
    public func write(_ data: Data) async throws -> FileReference {
        var upload = try await startUpload()
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + Self.chunkSize)
            try await upload.append(data[data.startIndex + offset..<data.startIndex + end])
            offset = end
        }
        return try await upload.finish()
    }

    /// Stores the file at `url`, reading it a chunk (256 KiB) at a time.
    @discardableResult
    public func write(contentsOf url: URL) async throws -> FileReference {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw StrataError(.storageFailure, "cannot read \(url.path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        var upload = try await startUpload()
        do {
            while let piece = try handle.read(upToCount: Self.chunkSize), !piece.isEmpty {
                try await upload.append(piece)
            }
        } catch {
            try? await upload.cancel()
            throw error
        }
        return try await upload.finish()
    }

    /// Stores the bytes `pieces` yields, in the order it yields them.
    @discardableResult
    public func write<Pieces: AsyncSequence>(contentsOf pieces: Pieces) async throws -> FileReference
    where Pieces.Element == Data {
        var upload = try await startUpload()
        do {
            for try await piece in pieces where !piece.isEmpty { try await upload.append(piece) }
        } catch {
            try? await upload.cancel()
            throw error
        }
        return try await upload.finish()
    }

    /// Starts an upload to which bytes are appended piece by piece, each durably; `expecting`, when
    /// given, is checked when it finishes (a sync server knows what a client sends).
    public func startUpload(expecting file: FileReference? = nil) async throws -> FileUpload {
        let blob = try await store.writeMetadata { try FileSpace.begin(expecting: file, in: $0) }
        return FileUpload(store: store, id: blob, received: 0)
    }

    /// The unfinished upload with this ID, where it stopped (after a crash, a lost connection), or
    /// nil when there is none (finished, cancelled or collected).
    public func upload(_ id: String) async throws -> FileUpload? {
        guard let state = try await store.backend.read({ try FileSpace.upload(id, in: $0) }) else { return nil }
        return FileUpload(store: store, id: id, received: state.received)
    }

    /// Whether the file's bytes are in this store: its digest, of its size (a reference naming the
    /// right digest with another size is not the file).
    public func contains(_ file: FileReference) async throws -> Bool {
        try await store.backend.read { try FileSpace.manifest(file.digest, in: $0)?.size == file.size }
    }

    /// The files whose bytes are here, by digest, after `after` when given, at most `limit`.
    public func stored(after: FileReference? = nil, limit: Int = 1_000) async throws -> [FileReference] {
        let prefix = MetadataKeys.fileManifestPrefix
        return try await store.backend.read { transaction in
            try transaction.metadata(prefix: prefix, after: after.map { prefix + $0.digest }, limit: limit).compactMap {
                let digest = String($0.key.dropFirst(prefix.count))
                return try FileSpace.manifest(digest, in: transaction).flatMap {
                    FileReference(digest: digest, size: $0.size)
                }
            }
        }
    }

    /// Files records refer to whose bytes are not here — records a sync client pulled before their
    /// files were downloaded, or that refer to bytes never written — by digest, after `after` when
    /// given, at most `limit`. Reading one is `StrataError.Code.fileUnavailable` until its bytes
    /// are written (downloaded) here.
    public func missing(after: FileReference? = nil, limit: Int = 1_000) async throws -> [FileReference] {
        let prefix = MetadataKeys.fileMissingPrefix
        return try await store.backend.read { transaction in
            try transaction.metadata(prefix: prefix, after: after.map { prefix + $0.digest }, limit: limit).compactMap {
                FileReference(text: String(decoding: $0.value, as: UTF8.self))
            }
        }
    }

    /// Stores `file`'s bytes read from `source` (another store's files), unless they are here
    /// already; checked against the digest. Returns whether it copied.
    @discardableResult
    public func copy(_ file: FileReference, from source: FileStorage) async throws -> Bool {
        if try await contains(file) { return false }
        var upload = try await startUpload(expecting: file)
        do {
            for try await chunk in source.contents(of: file) { try await upload.append(chunk) }
        } catch {
            try? await upload.cancel()
            throw error
        }
        _ = try await upload.finish()
        return true
    }

    /// How many record properties refer to the file.
    public func referenceCount(of file: FileReference) async throws -> Int {
        Int(try await store.backend.read { try FileSpace.references(file.digest, in: $0) })
    }

    /// The file's bytes, chunk by chunk, each read in its own transaction; from `offset` when given
    /// (a resumed download). Read from the start, the bytes are checked against the digest at the
    /// end. Throws `StrataError.Code.fileUnavailable` when the bytes are not here (never written,
    /// not downloaded yet, or freed) and `StrataError.Code.corruptStore` when they are damaged.
    public func contents(of file: FileReference, from offset: Int64 = 0) -> FileContents {
        FileContents(store: store, file: file, offset: offset)
    }

    /// The whole file in memory: for small files (a larger one streams with ``contents(of:from:)``).
    public func data(of file: FileReference) async throws -> Data {
        var data = Data()
        for try await chunk in contents(of: file) { data.append(chunk) }
        return data
    }

    /// Writes the file to `url` (replacing what is there), chunk by chunk.
    public func export(_ file: FileReference, to url: URL) async throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw StrataError(.storageFailure, "cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        for try await chunk in contents(of: file) { try handle.write(contentsOf: chunk) }
    }
}

extension Store {
    /// The store's files (see ``FileStorage``).
    public var files: FileStorage { FileStorage(store: self) }
}
