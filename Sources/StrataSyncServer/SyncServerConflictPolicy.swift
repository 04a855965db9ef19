import Strata
import StrataSync

/// How a ``SyncServer`` resolves a pushed put against the record it holds, per entity — the sync
/// server's conflict policy. (A model context's is `MergePolicy`; a sync client's, when a pulled
/// record still has pending local mutations, is `SyncClientConflictPolicy`.)
public enum SyncServerConflictPolicy: Sendable {
    /// Apply the mutation's changed properties over the stored record (per-property last
    /// writer wins, in arrival order).
    case lastWriterWins
    /// Reject a put made against a server version that is no longer current.
    case rejectStale
    /// Decide in code: return the values to write over the stored record, or `nil` to reject.
    case custom(@Sendable (_ stored: Record, _ mutation: SyncMutation) -> [String: Value]?)
}
