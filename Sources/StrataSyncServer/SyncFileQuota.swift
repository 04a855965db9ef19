/// How much of a server's file space one identity may take: unfinished uploads (counted at the
/// size each declares when it starts, so an upload that claims a terabyte is refused before its
/// first byte) and the files it uploaded whole that are still stored. Over any of them, the piece
/// that would start a new upload is refused with `StrataError.Code.quotaExceeded` (HTTP 413),
/// naming the limit; uploads already under way resume as before. A trusted caller (no identity)
/// has no quota.
///
/// Bytes the server frees stop counting: an unfinished upload at once when it is finished or
/// collected, a file no record refers to any more when the server next collects
/// (``SyncFileCollection``, hourly by default).
public struct SyncFileQuota: Sendable, Equatable {
    /// The most bytes an identity's unfinished uploads may declare together.
    public var unfinishedBytes: Int64
    /// The most unfinished uploads an identity may have at once.
    public var unfinishedUploads: Int
    /// The most bytes of files an identity uploaded that may be stored at once (a file uploaded by
    /// several identities counts for each; a single file larger than this is refused whole).
    public var storedBytes: Int64

    /// A quota; the defaults are 1 GiB unfinished in at most 16 uploads, and 4 GiB stored.
    public init(unfinishedBytes: Int64 = 1 << 30, unfinishedUploads: Int = 16, storedBytes: Int64 = 4 << 30) {
        self.unfinishedBytes = max(0, unfinishedBytes)
        self.unfinishedUploads = max(0, unfinishedUploads)
        self.storedBytes = max(0, storedBytes)
    }

    /// No limit on any of them.
    public static let unlimited = SyncFileQuota(
        unfinishedBytes: .max, unfinishedUploads: .max, storedBytes: .max)
}
