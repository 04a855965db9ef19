import Foundation
import Strata

extension Store {
    /// Makes this store's history the same as `source`'s: every entry and the history counter,
    /// for a copy that keeps history (`strata copy --history`). This store's own entries are
    /// replaced in one write, all or nothing: the source's entries are read first, in pages.
    public func replaceHistory(with source: Store) async throws {
        var entries: [(key: String, value: [UInt8])] = []
        var after: String?
        while true {
            let start = after
            let page = try await source.backend.read {
                try $0.metadata(prefix: HistoryLog.entryPrefix, after: start, limit: 512)
            }
            guard let last = page.last else { break }
            entries += page.map { ($0.key, $0.value) }
            after = last.key
        }
        let (counter, purged) = try await source.backend.read {
            (try $0.metadata(HistoryLog.lastTokenKey), try $0.metadata(HistoryLog.purgedBeforeKey))
        }
        let copied = entries
        try await writeMetadata(wakes: true) { transaction in
            _ = try HistoryLog.purge(before: HistoryToken(Int64.max), in: transaction)
            for entry in copied { try transaction.setMetadata(entry.key, entry.value) }
            try transaction.setMetadata(HistoryLog.lastTokenKey, counter)
            try transaction.setMetadata(HistoryLog.purgedBeforeKey, purged)
        }
    }
}
