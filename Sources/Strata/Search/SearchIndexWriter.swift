import StrataStorage

/// One record's text before and after a save, per indexed attribute: its words in order (a
/// word's position is its index). Nil before for an insert, nil after for a delete.
struct SearchDocumentChange: Sendable {
    var id: RecordID
    var old: [[String]]?
    var new: [[String]]?

    /// The words of `record`'s indexed attributes.
    static func words(of record: Record, _ index: SearchIndexDescription) -> [[String]] {
        index.fields.map { field in
            guard case .string(let text) = record[field.attribute] else { return [] }
            return SearchTokenizer.words(text)
        }
    }
}

/// The distinct words of a save (or a check), each numbered once in the order first seen: a
/// word is hashed once per occurrence and then handled by its number.
struct SearchWordSlots {
    private var numbers: [String: Int] = [:]
    /// The words by number.
    private(set) var words: [String] = []

    mutating func slot(_ word: String) -> Int {
        if let number = numbers[word] { return number }
        numbers[word] = words.count
        words.append(word)
        return words.count - 1
    }
}

/// Writes a save's changes to one full-text index as a new segment, then merges: when a level
/// holds eight segments they become one of the next level (entries of a record in a newer
/// segment replace its older ones; tombstones go once nothing older is left).
struct SearchIndexWriter {
    static let mergeWidth = 8

    let layout: SearchIndexLayout
    let fields: Int
    let transaction: any StorageWriteTransaction

    init(entity: String, index: SearchIndexDescription, transaction: any StorageWriteTransaction) {
        layout = SearchIndexLayout(entity: entity, index: index.name)
        fields = index.fields.count
        self.transaction = transaction
    }

    func apply(_ changes: [SearchDocumentChange]) throws {
        guard !changes.isEmpty else { return }
        var stats = try SearchIndexStats.read(layout, fields: fields, from: transaction)
        let before = stats
        // Records in ID order, so each word's entries are appended in the order its list keeps.
        let changed = changes.filter { $0.old == nil || $0.old != $0.new }
        let ordered = RecordIDOrder.permutation(changed.map(\.id)).lazy.map { changed[$0] }
        var slots = SearchWordSlots()
        var lists: [SearchListBuilder] = []
        for change in ordered {
            var kept: Set<Int> = []
            if let new = change.new {
                stats.documents += 1
                var lengths: [Int] = []
                lengths.reserveCapacity(new.count)
                for (field, words) in new.enumerated() {
                    stats.totals[field] += words.count
                    lengths.append(words.count)
                }
                let updating = change.old != nil
                let head = SearchListBuilder.liveHead(change.id, lengths: lengths)
                Self.forEachWord(of: new, &slots) { slot, _, occurrences in
                    if slot == lists.count { lists.append(SearchListBuilder()) }
                    lists[slot].appendLive(head: head, fields: lengths.count, occurrences: occurrences)
                    if updating { kept.insert(slot) }
                }
            }
            if let old = change.old {
                stats.documents -= 1
                for (field, words) in old.enumerated() { stats.totals[field] -= words.count }
                for word in Set(old.joined()) {
                    let slot = slots.slot(word)
                    if slot == lists.count { lists.append(SearchListBuilder()) }
                    if !kept.contains(slot) { lists[slot].appendTombstone(change.id) }
                }
            }
        }
        // A word whose old and new entries cancel out has an empty list: not written.
        let written = lists.indices.filter { lists[$0].count > 0 }.sorted { slots.words[$0] < slots.words[$1] }
        if !written.isEmpty {
            let segment = stats.nextSegment
            stats.nextSegment += 1
            stats.segments.append(.init(id: segment, level: 0))
            // In key order: B-trees take sorted inserts with the fewest page splits.
            for slot in written {
                try transaction.setMetadata(
                    layout.entries(slots.words[slot], segment), lists[slot].bytes(fields: fields))
            }
            try writeDirectory(written.map { slots.words[$0] }, segment)
            try mergeFull(&stats)
        }
        if stats != before { try transaction.setMetadata(layout.stats, stats.encoded()) }
    }

    /// Calls `body` once per distinct word of `text` with the word's number in `slots`, the word,
    /// and its occurrences, (attribute, position) pairs in ascending order.
    static func forEachWord(
        of text: [[String]], _ slots: inout SearchWordSlots,
        _ body: (Int, String, ArraySlice<(field: Int, position: Int)>) -> Void
    ) {
        var pairs: [(field: Int, position: Int)] = []
        var keys: [UInt64] = []
        for (field, list) in text.enumerated() {
            for (position, word) in list.enumerated() {
                // The word's number above, the occurrence's ordinal below: sorting the keys groups
                // a word's occurrences and keeps them in (attribute, position) order.
                keys.append(UInt64(slots.slot(word)) << 32 | UInt64(pairs.count))
                pairs.append((field, position))
            }
        }
        keys.sort()
        var group: [(field: Int, position: Int)] = []
        var start = 0
        while start < keys.count {
            let slot = keys[start] >> 32
            var end = start
            group.removeAll(keepingCapacity: true)
            while end < keys.count, keys[end] >> 32 == slot {
                group.append(pairs[Int(truncatingIfNeeded: keys[end] & 0xFFFF_FFFF)])
                end += 1
            }
            let first = group[0]
            body(Int(slot), text[first.field][first.position], group[...])
            start = end
        }
    }

    private func writeDirectory(_ words: [String], _ segment: UInt64) throws {
        var writer = BinaryWriter()
        writer.unsigned(UInt64(words.count))
        for word in words { writer.string(word) }
        try transaction.setMetadata(layout.directory(segment), writer.bytes)
    }

    private func readDirectory(_ segment: UInt64) throws -> [String] {
        guard let bytes = try transaction.metadata(layout.directory(segment)) else {
            throw layout.damaged("segment \(segment)'s word list is missing")
        }
        var reader = BinaryReader(bytes)
        do {
            return try (0..<reader.count()).map { _ in try reader.string() }
        } catch {
            throw layout.damaged("segment \(segment)'s word list is unreadable")
        }
    }

    /// Merges every level that holds ``mergeWidth`` segments, lowest first.
    private func mergeFull(_ stats: inout SearchIndexStats) throws {
        var level = 0
        while stats.segments.filter({ $0.level == level }).count >= Self.mergeWidth {
            try merge(level: level, &stats)
            level += 1
        }
    }

    private func merge(level: Int, _ stats: inout SearchIndexStats) throws {
        let members = stats.segments.filter { $0.level == level }.sorted { $0.id > $1.id }
        let dropTombstones = !stats.segments.contains { $0.level > level }
        let merged = stats.nextSegment
        stats.nextSegment += 1
        var words: Set<String> = []
        for member in members { words.formUnion(try readDirectory(member.id)) }
        var kept: [String] = []
        for word in words.sorted() {
            var lists: [[SearchPosting]] = []
            for member in members {
                let key = layout.entries(word, member.id)
                guard let bytes = try transaction.metadata(key) else { continue }
                lists.append(try SearchPostingCodec.decode(bytes, fields: fields, key: key, layout))
                try transaction.setMetadata(key, nil)
            }
            var entries = SearchPostingMerge.newestFirst(lists)
            if dropTombstones { entries.removeAll(where: \.isTombstone) }
            guard !entries.isEmpty else { continue }
            try transaction.setMetadata(
                layout.entries(word, merged), SearchPostingCodec.encode(entries, fields: fields))
            kept.append(word)
        }
        for member in members { try transaction.setMetadata(layout.directory(member.id), nil) }
        try writeDirectory(kept, merged)
        stats.segments.removeAll { $0.level == level }
        stats.segments.append(.init(id: merged, level: level + 1))
    }
}

enum SearchPostingMerge {
    /// One entry per record from lists each in ID order, the first list's entry winning (lists
    /// newest first), in ID order: each older list merged under the result in one pass.
    static func newestFirst(_ lists: [[SearchPosting]]) -> [SearchPosting] {
        var result = lists.first ?? []
        for older in lists.dropFirst() {
            var merged: [SearchPosting] = []
            merged.reserveCapacity(result.count + older.count)
            var i = 0
            var j = 0
            while i < result.count || j < older.count {
                if j == older.count || (i < result.count && result[i].id < older[j].id) {
                    merged.append(result[i])
                    i += 1
                } else if i == result.count || older[j].id < result[i].id {
                    merged.append(older[j])
                    j += 1
                } else {
                    merged.append(result[i])
                    i += 1
                    j += 1
                }
            }
            result = merged
        }
        return result
    }
}
