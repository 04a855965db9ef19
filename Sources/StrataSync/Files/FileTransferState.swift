import Foundation
import Strata

/// How far a file's upload to the server has come: what the server answers each piece with
/// (`PUT /strata/v1/files/{digest}`).
public struct FileTransferState: Sendable, Hashable, Codable {
    /// Bytes the server holds of the upload; the next piece starts here.
    public var received: Int64
    /// Whether the server holds the whole file (and knows this identity uploaded it).
    public var complete: Bool

    /// A state.
    public init(received: Int64, complete: Bool) {
        self.received = received
        self.complete = complete
    }
}

extension SyncWire {
    /// The files route's prefix: `PUT` and `GET /strata/v1/files/{digest}?size=&offset=`.
    public static let filesPath = "/strata/v1/files/"

    /// The most bytes one upload piece or one download answer carries (one chunk, 256 KiB: a
    /// piece is copied on its way through the HTTP layers, so smaller pieces hold less memory).
    public static let filePieceBytes = 262_144

    /// The file a files route names, or nil when the path or the query is not one.
    public static func file(path: String, query: [String: String]) -> FileReference? {
        guard path.hasPrefix(filesPath), let size = query["size"].flatMap(Int64.init) else { return nil }
        return FileReference(digest: String(path.dropFirst(filesPath.count)), size: size)
    }

    /// The offset a files route's query names (0 when absent), or nil when it is not a
    /// non-negative integer.
    public static func fileOffset(_ query: [String: String]) -> Int64? {
        guard let text = query["offset"] else { return 0 }
        guard let offset = Int64(text), offset >= 0 else { return nil }
        return offset
    }

    static func fileRequest(_ method: String, _ file: FileReference, offset: Int64, body: [UInt8] = []) -> Request {
        Request(
            method: method, path: filesPath + file.digest,
            query: ["size": String(file.size), "offset": String(offset)],
            headers: body.isEmpty ? [:] : ["content-type": "application/octet-stream"], body: body)
    }
}

extension SyncWireClient {
    /// Sends one piece of `file` starting at `offset` (an empty piece asks how far the upload is).
    public func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState {
        let request = SyncWire.fileRequest("PUT", file, offset: offset, body: Array(bytes))
        return try await exchange(request) { try JSONDecoder().decode(FileTransferState.self, from: Data($0)) }
    }

    /// Up to ``SyncWire/filePieceBytes`` of `file` from `offset`.
    public func download(_ file: FileReference, from offset: Int64) async throws -> Data {
        try await exchange(SyncWire.fileRequest("GET", file, offset: offset)) { Data($0) }
    }
}
