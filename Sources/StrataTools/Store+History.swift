import Foundation
import Strata

extension Store {
    /// Makes this store's history the same as `source`'s: every entry and the history counter,
    /// for a copy that keeps history (`strata copy --history`). This store's own entries are
    /// removed first. Entries are copied in pages, each page one write.
    public func replaceHistory(with source: Store) async throws {
        _ = try await backend.write { try HistoryLog.purge(before: HistoryToken(Int64.max), in: $0) }
        try await backend.write { try $0.setMetadata(HistoryLog.purgedBeforeKey, nil) }
        var after: String?
        while true {
            let start = after
            let page = try await source.backend.read {
                try $0.metadata(prefix: HistoryLog.entryPrefix, after: start, limit: 512)
            }
            guard let last = page.last else { break }
            try await backend.write { transaction in
                for entry in page { try transaction.setMetadata(entry.key, entry.value) }
            }
            after = last.key
        }
        let (counter, purged) = try await source.backend.read {
            (try $0.metadata(HistoryLog.lastTokenKey), try $0.metadata(HistoryLog.purgedBeforeKey))
        }
        try await backend.write { transaction in
            try transaction.setMetadata(HistoryLog.lastTokenKey, counter)
            try transaction.setMetadata(HistoryLog.purgedBeforeKey, purged)
        }
        hub.committedHere(nil)
    }
}
