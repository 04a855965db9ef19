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
        // Every entry as (list, index), in ID order with the newest list first for one ID.
        var order: [(list: Int, index: Int)] = []
        if lists.count == 1 {
            order = lists[0].entries.ids.indices.map { (0, $0) }
        } else {
            for (list, entry) in lists.enumerated() {
                for index in entry.entries.ids.indices { order.append((list, index)) }
            }
            order.sort { a, b in
                let left = lists[a.list].entries.ids[a.index]
                let right = lists[b.list].entries.ids[b.index]
                return left != right ? left < right : a.list < b.list
            }
        }
        var result = SearchCounts()
        var previous: RecordID?
        for (list, index) in order {
            let entries = lists[list].entries
            let id = entries.ids[index]
            if id == previous { continue }
            previous = id
            guard entries.live[index] else { continue }
            result.ids.append(id)
            result.live.append(true)
            result.counts.append(contentsOf: entries.counts[(index * fields)..<((index + 1) * fields)])
            result.lengths.append(contentsOf: entries.lengths[(index * fields)..<((index + 1) * fields)])
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
