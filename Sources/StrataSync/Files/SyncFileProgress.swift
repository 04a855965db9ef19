import Strata

/// Files moving between a client and its server, as ``SyncStatus/files`` publishes them.
public struct SyncFileProgress: Sendable, Hashable {
    /// The file whose bytes are going up now.
    public var uploading: FileReference?
    /// The file whose bytes are coming down now.
    public var downloading: FileReference?
    /// Bytes uploaded since the engine started.
    public var bytesUploaded: Int64 = 0
    /// Bytes downloaded since the engine started.
    public var bytesDownloaded: Int64 = 0
    /// Files local records refer to whose bytes are still to come down (counted as the engine
    /// reaches them; after a sync, those the server could not send).
    public var toDownload = 0

    /// No file moving.
    public init() {}
}
