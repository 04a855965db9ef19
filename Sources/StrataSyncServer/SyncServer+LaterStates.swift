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
