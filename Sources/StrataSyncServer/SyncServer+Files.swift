import Foundation
import Strata
import StrataSync

/// Files over sync: a client uploads a file's bytes in pieces, resumably, before it pushes a record
/// referring to it, and downloads the bytes of files its records refer to. The rule that keeps
/// content addressing from leaking bytes: an identity may read a file — download it, or write a
/// record referring to it — when it uploaded the bytes whole itself, or when a record it may read
/// refers to the file. Knowing a digest is never enough.
extension SyncServer {
    /// Receives `bytes` of `file` at `offset` from `identity` (`nil`: trusted). A piece that does
    /// not start where the upload stands is not applied; the answer says where it stands, so a
    /// client that lost an answer resends from there. The last piece finishes the upload, checked
    /// against the file's digest (a mismatch drops it: `StrataError.Code.validationFailed`).
    /// The piece that starts an upload is refused with `StrataError.Code.quotaExceeded` when the
    /// upload would put `identity` over `quota`.
    public func receive(
        _ bytes: Data, of file: FileReference, at offset: Int64, as identity: SyncIdentity?,
        quota: SyncFileQuota = SyncFileQuota()
    ) async throws -> FileTransferState {
        try Self.checkPiece(bytes, of: file, at: offset)
        let keys = FileKeys(file, identity)
        let holder = keys.holder
        let proved = try await store.backend.read { transaction in
            try holder.map { try transaction.metadata($0) != nil } ?? true
        }
        if proved, try await store.files.contains(file) {
            return FileTransferState(received: file.size, complete: true)
        }
        let who = keys.who
        var upload = try await store.files.upload(recordedAt: keys.upload, expecting: file) { transaction in
            if let who { try Self.admit(file, who: who, quota: quota, in: transaction) }
        }
        if offset == upload.received, !bytes.isEmpty {
            do {
                try await upload.append(bytes, at: offset)
            } catch let error as StrataError where error.code == .versionMismatch {
                upload = try await store.files.upload(upload.id) ?? upload
            }
        }
        guard upload.received == file.size else {
            return FileTransferState(received: upload.received, complete: false)
        }
        do {
            _ = try await upload.finish()
        } catch {
            try? await store.writeMetadata { try $0.setMetadata(keys.upload, nil) }
            // The file store's words name its upload's ID, which is the server's own.
            if let error = error as? StrataError, error.code == .validationFailed {
                throw StrataError(
                    .validationFailed, "the bytes received are not \(file); they were dropped: send the file again")
            }
            throw error
        }
        try await store.writeMetadata { transaction in
            try transaction.setMetadata(keys.upload, nil)
            if let holder, let who {
                try transaction.setMetadata(holder, [1])
                try Self.recordHeld(file, who: who, in: transaction)
            }
        }
        return FileTransferState(received: file.size, complete: true)
    }

    /// Up to `SyncWire.filePieceBytes` of `file` from `offset`, when `identity` may read it;
    /// `StrataError.Code.fileUnavailable` when it may not or the bytes are not here (one answer
    /// for both, so a digest's existence is not told to who may not read it).
    public func send(_ file: FileReference, from offset: Int64, as identity: SyncIdentity?) async throws -> Data {
        let (access, executor) = (access, store.executor)
        let readable = try await store.backend.read { transaction in
            var view = try AccessView(access: access, identity: identity, schema: transaction.schema)
            try view.readShares(schema: transaction.schema) { try executor.fetch($0, in: transaction) }
            return try Self.mayRead(file, view: view, in: transaction) { try executor.fetch($0, in: transaction) }
        }
        guard readable, offset >= 0, offset <= file.size, try await store.files.contains(file) else {
            throw StrataError(.fileUnavailable, "no file \(file.digest) that \(identity?.id ?? "the caller") may read")
        }
        var piece = Data()
        for try await chunk in store.files.contents(of: file, from: offset) {
            piece.append(chunk)
            if piece.count >= SyncWire.filePieceBytes { break }
        }
        return piece.prefix(SyncWire.filePieceBytes)
    }

    /// A piece is at most `SyncWire.filePieceBytes` and lies inside the file; anything else is
    /// `StrataError.Code.invalidQuery` (400), before any state is read.
    static func checkPiece(_ bytes: Data, of file: FileReference, at offset: Int64) throws {
        guard bytes.count <= SyncWire.filePieceBytes else {
            throw StrataError(
                .invalidQuery,
                "a piece of a file is at most \(SyncWire.filePieceBytes) bytes (256 KiB); this one has \(bytes.count)")
        }
        guard offset >= 0, offset <= file.size, Int64(bytes.count) <= file.size - offset else {
            throw StrataError(
                .invalidQuery,
                "a piece of \(bytes.count) bytes at offset \(offset) does not lie inside the file's \(file.size) bytes")
        }
    }

    /// ``receive(_:of:at:as:quota:)`` for a trusted caller.
    public func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState {
        try await receive(bytes, of: file, at: offset, as: nil)
    }

    /// ``send(_:from:as:)`` for a trusted caller.
    public func download(_ file: FileReference, from offset: Int64) async throws -> Data {
        try await send(file, from: offset, as: nil)
    }

    /// Whether the view's identity may read `file`: it uploaded the bytes whole, or a record it
    /// may read refers to the file (one indexed lookup per file attribute, where it is indexed).
    static func mayRead(
        _ file: FileReference, view: AccessView, in transaction: any StorageReadTransaction,
        fetch: (FetchPlan) throws -> [Record]
    ) throws -> Bool {
        guard let identity = view.identity else { return true }
        if try transaction.metadata(FileKeys(file, identity).holder ?? "") != nil { return true }
        for entity in transaction.schema.entities {
            for attribute in entity.fileAttributes {
                let refers = FilterExpression.compare(attribute.name, .equal, .string(file.text), [])
                let predicate: FilterExpression
                switch view.readScope(of: entity.name) {
                case .none: continue
                case .all: predicate = refers
                case .matching(let filter): predicate = .and([refers, filter])
                }
                if try !fetch(FetchPlan(entity: entity.name, predicate: predicate, limit: 1)).isEmpty { return true }
            }
        }
        return false
    }

    /// Why a push may not write `mutation`'s file references, or nil: every file it sets that the
    /// record did not already refer to must be readable by the writer (uploaded by it, or referred
    /// to by a record it may read).
    static func fileRefusal(_ mutation: SyncMutation, by view: AccessView, in session: SaveSession) throws -> String? {
        guard let identity = view.identity, mutation.kind == .put,
            let entity = session.workingSet.schema.entity(mutation.entity), entity.holdsFiles
        else { return nil }
        var stored: Record??
        for attribute in entity.fileAttributes {
            guard let file = FileReference(mutation.values[attribute.name]) else { continue }
            let text = file.text
            if stored == nil { stored = .some(try session.workingSet.record(mutation.entity, id: mutation.recordID)) }
            if case .some(.some(let record)) = stored, record[attribute.name] == .string(text) { continue }
            let reader = session.workingSet
            if try !mayRead(file, view: view, in: reader, fetch: { try reader.fetch($0) }) {
                return "\(mutation.key).\(attribute.name) refers to a file \(identity) has not uploaded and cannot read"
            }
        }
        return nil
    }
}

/// The server's bookkeeping keys for one file and identity.
struct FileKeys {
    /// The identity's unfinished upload of the file.
    let upload: String
    /// The mark that the identity uploaded the file whole (nil for a trusted caller).
    let holder: String?
    /// The identity's hash (nil for a trusted caller).
    let who: String?

    init(_ file: FileReference, _ identity: SyncIdentity?) {
        // Identities are hashed: an ID may hold any text, and a key must stay short.
        let who = identity.map { SHA256.digest(Array($0.id.utf8)) }
        upload = MetadataKeys.serverFileUploadPrefix + (who ?? "trusted") + "." + file.digest
        holder = who.map { MetadataKeys.serverFileHolderPrefix + file.digest + "." + $0 }
        self.who = who
    }
}
