import Foundation
import Strata

/// Files beside the records, moved separately from them: before a push, the bytes of every file its
/// mutations refer to go up (resumably: the server says how much it holds); after a pull, the
/// bytes of files the pulled records refer to come down (each download resumable and checked by
/// digest), or on demand with ``download(_:)``. Memory holds one piece (256 KiB) at a time.
extension SyncEngine {
    /// Uploads every file the mutations refer to that this client holds and has not uploaded.
    func uploadFiles(referencedBy batch: [SyncMutation]) async throws -> Int {
        let schema = store.schema
        var files: [FileReference] = []
        for mutation in batch {
            guard let entity = schema.entity(mutation.entity) else { continue }
            files += entity.fileAttributes.compactMap { FileReference(mutation.values[$0.name]) }
        }
        guard !files.isEmpty else { return 0 }
        let prefix = MetadataKeys.syncFileUploadedPrefix
        let keys = files.map { prefix + $0.digest }
        let done = try await store.backend.read { try $0.metadata(keys: keys) }
        var uploaded = 0
        for file in Set(files).sorted(by: { $0.text < $1.text }) where done[prefix + file.digest] == nil {
            // A file this store does not hold was pulled, not written here: the server judges it.
            guard try await store.files.contains(file) else { continue }
            try await upload(file)
            uploaded += 1
        }
        return uploaded
    }

    /// Uploads `file`'s bytes from this store to the server, from where the server's copy stands.
    public func upload(_ file: FileReference) async throws {
        var state = try await call { try await remote.upload(Data(), of: file, at: 0) }
        status.files.uploading = file
        publish()
        defer {
            status.files.uploading = nil
            publish()
        }
        while !state.complete {
            let offset = state.received
            // A piece is the stored chunk the offset falls in, from the offset on (a chunk is a
            // piece's size), sent as it was read.
            var sending = Data()
            for try await chunk in store.files.contents(of: file, from: offset) {
                sending = chunk.count > SyncWire.filePieceBytes ? chunk.prefix(SyncWire.filePieceBytes) : chunk
                break
            }
            guard !sending.isEmpty else {
                throw StrataError(.storageFailure, "the server holds \(offset) bytes of \(file) and asks for more")
            }
            state = try await call { try await remote.upload(sending, of: file, at: offset) }
            status.files.bytesUploaded += Int64(sending.count)
            publish()
        }
        let key = MetadataKeys.syncFileUploadedPrefix + file.digest
        try await store.writeMetadata { try $0.setMetadata(key, [1]) }
    }

    /// Downloads `file`'s bytes into this store unless they are here, resuming a download that
    /// was cut off; checked against the digest before any record can read them.
    public func download(_ file: FileReference) async throws {
        if try await store.files.contains(file) { return }
        let key = MetadataKeys.syncFileDownloadPrefix + file.digest
        var upload = try await store.files.upload(recordedAt: key, expecting: file)
        status.files.downloading = file
        publish()
        defer {
            status.files.downloading = nil
            publish()
        }
        while upload.received < file.size {
            let offset = upload.received
            let piece = try await call { try await remote.download(file, from: offset) }
            guard !piece.isEmpty else {
                throw SyncTransportError(.serverError, "the server sent no bytes of \(file) from \(offset)")
            }
            try await upload.append(piece, at: offset)
            status.files.bytesDownloaded += Int64(piece.count)
            publish()
        }
        do {
            _ = try await upload.finish()
        } catch {
            try? await store.writeMetadata { try $0.setMetadata(key, nil) }
            throw error
        }
        // The server holds these bytes and this client may read them: never uploaded back.
        let uploaded = MetadataKeys.syncFileUploadedPrefix + file.digest
        try await store.writeMetadata { transaction in
            try transaction.setMetadata(key, nil)
            try transaction.setMetadata(uploaded, [1])
        }
    }

    /// Downloads the bytes of every file local records refer to that are not here
    /// (`FileStorage.missing(after:limit:)`); returns how many came down. A file the server does
    /// not hold or will not send (404) stays missing and is tried again next time.
    @discardableResult
    public func downloadMissingFiles() async throws -> (downloaded: Int, unavailable: Int) {
        var (downloaded, unavailable) = (0, 0)
        var after: FileReference?
        while true {
            let page = try await store.files.missing(after: after, limit: 100)
            status.files.toDownload = page.count
            publish()
            for file in page {
                do {
                    try await download(file)
                    downloaded += 1
                } catch let error as SyncTransportError where error.status == 404 {
                    unavailable += 1
                } catch let error as StrataError where error.code == .fileUnavailable {
                    unavailable += 1
                }
            }
            guard page.count == 100 else { break }
            after = page.last
        }
        status.files.toDownload = unavailable
        publish()
        return (downloaded, unavailable)
    }
}
