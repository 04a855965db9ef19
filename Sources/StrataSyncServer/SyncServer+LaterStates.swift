import Foundation
import Strata
import StrataSync

extension SyncServer {
    /// Whether a reader that could not see a record at its cursor may hold it all the same: a new
    /// subscription's snapshot (taken at the server's head, while the pull behind it is still to
    /// come) can have given it any state the record had since. `later` are the record's changes
    /// after its first since the cursor; the state before each is one the record had after the
    /// cursor. It may be held when one of them is readable by the reader — or was not kept (its
    /// entity has no read scope, so nothing about it is hidden from the reader). A record held
    /// that way and unreadable now gets its tombstone or eviction; one never readable gets nothing.
    static func mayHaveHeld(
        _ key: RecordKey, later: [(token: HistoryToken, kind: HistoryChange.Kind)], filter: ReadFilter,
        in transaction: any StorageReadTransaction
    ) throws -> Bool {
        for (token, kind) in later {
            switch try prior(key, before: token, kind: kind, in: transaction) {
            case .none: return true
            case .some(.none): continue
            case .some(.some(let state)): if try filter.isVisible(state, in: transaction) { return true }
            }
        }
        return false
    }
}

extension SyncServer {
    /// The reader's store as at each subscription snapshot it names past its cursor
    /// (``PullRequest/snapshotsAt``), from the page's history: a record reads as it was before its
    /// first change after the token, or as it is when the page has none. More than
    /// ``PullRequest/maximumSnapshotsAt`` tokens are `invalidQuery`.
    static func snapshotViews(
        _ tokens: [Int64]?, cursor: HistoryToken?, history: [HistoryTransaction],
        in transaction: any StorageReadTransaction
    ) throws -> [AtCursor] {
        guard let tokens, !tokens.isEmpty else { return [] }
        guard tokens.count <= PullRequest.maximumSnapshotsAt else {
            throw StrataError(.invalidQuery, "pull: at most \(PullRequest.maximumSnapshotsAt) `snapshots` may be given")
        }
        var views: [AtCursor] = []
        for token in Set(tokens).sorted() where token > (cursor?.value ?? 0) {
            var first: [RecordKey: (token: HistoryToken, kind: HistoryChange.Kind)] = [:]
            for entry in history where entry.token.value > token {
                for change in entry.changes {
                    let key = RecordKey(entity: change.entity, id: change.id)
                    if first[key] == nil { first[key] = (entry.token, change.kind) }
                }
            }
            views.append(AtCursor(readsGoTo: transaction, first: first))
        }
        return views
    }

    /// Whether the reader could read `key` in one of the snapshot `views` it may hold records from.
    static func readableInSnapshots(_ key: RecordKey, views: [AtCursor], filter: ReadFilter) throws -> Bool {
        for view in views where try filter.isVisible(view.record(key.entity, id: key.id), in: view) { return true }
        return false
    }
}
