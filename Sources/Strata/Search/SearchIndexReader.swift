import StrataStorage

/// Reads one full-text index as of a transaction: each word's live entries, newest segment
/// winning, in ID order. A key naming a segment the statistics do not list, or bytes that do not
/// decode, are ``StrataError/Code/corruptStore`` — never a silently different answer.
struct SearchIndexReader {
    let layout: SearchIndexLayout
    let description: SearchIndexDescription
    let stats: SearchIndexStats
    let transaction: any StorageReadTransaction
    private let recency: [UInt64: Int]

    init(entity: String, index: SearchIndexDescription, transaction: any StorageReadTransaction) throws {
        layout = SearchIndexLayout(entity: entity, index: index.name)
        description = index
        self.transaction = transaction
        stats = try SearchIndexStats.read(layout, fields: index.fields.count, from: transaction)
        recency = Dictionary(
            stats.byRecency.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    var fields: Int { description.fields.count }

    /// The live entries of `word`, in ID order.
    func entries(_ word: String) throws -> [SearchPosting] {
        try merged(try transaction.metadata(prefix: layout.entriesPrefix(word), after: nil, limit: nil))
    }

    /// The live entries of every word starting with `start`, by word.
    func entries(startingWith start: String) throws -> [String: [SearchPosting]] {
        var rows: [String: [(key: String, value: [UInt8])]] = [:]
        for row in try transaction.metadata(prefix: layout.wordsStarting(start), after: nil, limit: nil) {
            guard let (word, _) = layout.parseEntries(row.key) else {
                throw layout.damaged("a key \(row.key) is malformed")
            }
            rows[word, default: []].append(row)
        }
        return try rows.mapValues { try merged($0) }
    }

    /// The live entries of `word` as counts, in ID order.
    func counts(_ word: String) throws -> SearchCounts {
        try mergedCounts(try transaction.metadata(prefix: layout.entriesPrefix(word), after: nil, limit: nil))
    }

    /// The live entries of every word starting with `start`, as counts, one list per word.
    func counts(startingWith start: String) throws -> [SearchCounts] {
        var rows: [String: [(key: String, value: [UInt8])]] = [:]
        for row in try transaction.metadata(prefix: layout.wordsStarting(start), after: nil, limit: nil) {
            guard let (word, _) = layout.parseEntries(row.key) else {
                throw layout.damaged("a key \(row.key) is malformed")
            }
            rows[word, default: []].append(row)
        }
        return try rows.keys.sorted().map { try mergedCounts(rows[$0] ?? []) }
    }

    private func mergedCounts(_ rows: [(key: String, value: [UInt8])]) throws -> SearchCounts {
        var lists: [(recency: Int, entries: SearchCounts)] = []
        for row in rows {
            guard let (_, segment) = layout.parseEntries(row.key), let rank = recency[segment] else {
                throw layout.damaged("entries \(row.key) belong to no live segment")
            }
            lists.append((rank, try SearchPostingCodec.decodeCounts(row.value, fields: fields, key: row.key, layout)))
        }
        lists.sort { $0.recency < $1.recency }
        // Newest first: each older list merged under what is already kept, one pass each.
        var merged = lists.first?.entries ?? SearchCounts()
        for older in lists.dropFirst() { merged = Self.merge(newer: merged, older: older.entries, fields: fields) }
        guard merged.live.contains(false) else { return merged }
        var result = SearchCounts()
        for index in merged.ids.indices where merged.live[index] {
            result.ids.append(merged.ids[index])
            result.live.append(true)
            for field in 0..<fields {
                result.counts.append(merged.counts[index * fields + field])
                result.lengths.append(merged.lengths[index * fields + field])
            }
        }
        return result
    }

    /// Two lists in ID order as one, the newer's entry kept for an ID both hold (tombstones too).
    private static func merge(newer: SearchCounts, older: SearchCounts, fields: Int) -> SearchCounts {
        var result = SearchCounts()
        result.ids.reserveCapacity(newer.count + older.count)
        func take(_ list: SearchCounts, _ index: Int) {
            result.ids.append(list.ids[index])
            result.live.append(list.live[index])
            for field in 0..<fields {
                result.counts.append(list.counts[index * fields + field])
                result.lengths.append(list.lengths[index * fields + field])
            }
        }
        var i = 0
        var j = 0
        while i < newer.count || j < older.count {
            if j == older.count || (i < newer.count && newer.ids[i] < older.ids[j]) {
                take(newer, i)
                i += 1
            } else if i == newer.count || older.ids[j] < newer.ids[i] {
                take(older, j)
                j += 1
            } else {
                take(newer, i)
                i += 1
                j += 1
            }
        }
        return result
    }

    /// One word's segments merged newest first, tombstones dropped.
    private func merged(_ rows: [(key: String, value: [UInt8])]) throws -> [SearchPosting] {
        var lists: [(recency: Int, entries: [SearchPosting])] = []
        for row in rows {
            guard let (_, segment) = layout.parseEntries(row.key), let rank = recency[segment] else {
                throw layout.damaged("entries \(row.key) belong to no live segment")
            }
            lists.append((rank, try SearchPostingCodec.decode(row.value, fields: fields, key: row.key, layout)))
        }
        lists.sort { $0.recency < $1.recency }
        var entries = SearchPostingMerge.newestFirst(lists.map(\.entries))
        entries.removeAll(where: \.isTombstone)
        return entries
    }
}
