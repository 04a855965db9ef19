import Strata
import StrataSync

/// A push's mutations cut where one save could not hold them: an insert of a record that an
/// earlier mutation of the same run deleted. A save refuses a delete and an insert of one ID
/// (`duplicateID`, "save the delete first"), while the client made them in separate saves and its
/// outbox sends them in one batch; applied in order across the cut, the delete's rules reach the
/// old record's referrers only, and what the batch puts under the new record stays.
enum PushSegments {
    static func split(_ mutations: [SyncMutation]) -> [[SyncMutation]] {
        var segments: [[SyncMutation]] = []
        var current: [SyncMutation] = []
        var deleted: Set<RecordKey> = []
        for mutation in mutations {
            let key = mutation.key.normalized
            if mutation.kind == .put, mutation.isInsert, deleted.contains(key) {
                segments.append(current)
                current = []
                deleted = []
            }
            if mutation.kind == .delete { deleted.insert(key) }
            current.append(mutation)
        }
        segments.append(current)
        return segments
    }
}
