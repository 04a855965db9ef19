import StrataStorage

/// Evaluates a `SearchQuery` against one full-text index: each word, prefix or phrase found in
/// the index and scored by `SearchScoring`, then combined — `all` intersects and adds scores,
/// `any` unites and adds, `not` removes.
struct SearchEvaluator {
    let reader: SearchIndexReader
    private let weights: [Double]
    private let averageLength: Double

    init(_ reader: SearchIndexReader) {
        self.reader = reader
        weights = reader.description.fields.map(\.weight)
        let documents = reader.stats.documents
        var total = 0.0
        for (weight, count) in zip(weights, reader.stats.totals) { total += weight * Double(count) }
        averageLength = documents > 0 ? total / Double(documents) : 0
    }

    /// The matches of `query`; none when it holds no word.
    func matches(_ query: SearchQuery) throws -> SearchMatches {
        if case .not = query { throw refusal(query, "a search of only exclusions has nothing to rank") }
        return try evaluate(query) ?? SearchMatches()
    }

    /// Nil when the part holds no word (it is left out of its parent).
    private func evaluate(_ query: SearchQuery) throws -> SearchMatches? {
        switch query {
        case .word(let text):
            return try leaf(SearchTokenizer.queryTokens(text))
        case .phrase(let text):
            return try leaf(SearchTokenizer.queryTokens(text))
        case .prefix(let text):
            var tokens = SearchTokenizer.queryTokens(text)
            guard !tokens.isEmpty else { return nil }
            tokens[tokens.count - 1].isPrefix = true
            return try leaf(tokens)
        case .all(let parts):
            var positive: [SearchMatches] = []
            var negative: [SearchMatches] = []
            for part in parts {
                if case .not(let inner) = part {
                    if let found = try evaluate(inner) { negative.append(found) }
                } else if let found = try evaluate(part) {
                    positive.append(found)
                }
            }
            guard var result = positive.first else {
                if negative.isEmpty { return nil }
                throw refusal(query, "an exclusion needs a word beside it to rank")
            }
            for other in positive.dropFirst() { result = Self.intersect(result, other) }
            for other in negative { result = Self.subtract(result, other) }
            return result
        case .any(let parts):
            var result: SearchMatches?
            for part in parts {
                if case .not = part { throw refusal(query, "an exclusion cannot be one of several alternatives") }
                guard let found = try evaluate(part) else { continue }
                result = result.map { Self.unite($0, found) } ?? found
            }
            return result
        case .not:
            throw refusal(query, "an exclusion needs a word beside it to rank")
        }
    }

    private func refusal(_ query: SearchQuery, _ why: String) -> StrataError {
        StrataError(
            .invalidQuery, entity: reader.layout.entity,
            "search \"\(query)\" in \(reader.layout.index): \(why)")
    }

    // MARK: Words, prefixes and phrases

    /// Occurrences of one element of a phrase: per record, positions per attribute, and lengths.
    private struct Occurrences {
        var ids: [RecordID] = []
        var positions: [[[Int]]] = []
        var lengths: [[Int]] = []
    }

    private func occurrences(_ token: (text: String, isPrefix: Bool)) throws -> Occurrences {
        let lists =
            token.isPrefix
            ? Array(try reader.entries(startingWith: token.text).values) : [try reader.entries(token.text)]
        if lists.count == 1 {
            let list = lists[0]
            return Occurrences(
                ids: list.map(\.id), positions: list.map { $0.positions ?? [] }, lengths: list.map(\.lengths))
        }
        // Several words: one record's positions are the union of theirs.
        var byID: [RecordID: (positions: [[Int]], lengths: [Int])] = [:]
        for list in lists {
            for posting in list {
                let positions = posting.positions ?? []
                if var found = byID[posting.id] {
                    for field in positions.indices where field < found.positions.count {
                        found.positions[field] = (found.positions[field] + positions[field]).sorted()
                    }
                    byID[posting.id] = found
                } else {
                    byID[posting.id] = (positions, posting.lengths)
                }
            }
        }
        var result = Occurrences()
        for id in byID.keys.sorted() {
            guard let found = byID[id] else { continue }
            result.ids.append(id)
            result.positions.append(found.positions)
            result.lengths.append(found.lengths)
        }
        return result
    }

    /// A word, prefix or phrase (several tokens: each next one at the next position of the
    /// same attribute), scored.
    private func leaf(_ tokens: [(text: String, isPrefix: Bool)]) throws -> SearchMatches? {
        guard let first = tokens.first else { return nil }
        // One word or prefix: counts are enough (no positions decoded).
        if tokens.count == 1 {
            let lists = first.isPrefix ? try reader.counts(startingWith: first.text) : [try reader.counts(first.text)]
            return score(lists.count == 1 ? lists[0] : Self.unite(lists, fields: weights.count))
        }
        var current = try occurrences(first)
        for (offset, token) in tokens.enumerated().dropFirst() {
            current = Self.follow(current, by: try occurrences(token), offset: offset)
            if current.ids.isEmpty { break }
        }
        return score(current)
    }

    /// The records of `phrase` where `next` occurs `offset` positions after the phrase's start;
    /// the positions kept are the phrase's starts.
    private static func follow(_ phrase: Occurrences, by next: Occurrences, offset: Int) -> Occurrences {
        var result = Occurrences()
        var i = 0
        var j = 0
        while i < phrase.ids.count, j < next.ids.count {
            if phrase.ids[i] < next.ids[j] {
                i += 1
            } else if next.ids[j] < phrase.ids[i] {
                j += 1
            } else {
                var starts: [[Int]] = []
                var any = false
                for field in phrase.positions[i].indices {
                    let following = field < next.positions[j].count ? Set(next.positions[j][field]) : []
                    let kept = phrase.positions[i][field].filter { following.contains($0 + offset) }
                    any = any || !kept.isEmpty
                    starts.append(kept)
                }
                if any {
                    result.ids.append(phrase.ids[i])
                    result.positions.append(starts)
                    result.lengths.append(phrase.lengths[i])
                }
                i += 1
                j += 1
            }
        }
        return result
    }

    /// A phrase's matches scored as counts: its occurrences per attribute are its starts.
    private func score(_ found: Occurrences) -> SearchMatches {
        let fields = weights.count
        var counts = SearchCounts()
        for index in found.ids.indices {
            counts.ids.append(found.ids[index])
            counts.live.append(true)
            for field in 0..<fields {
                let positions = found.positions[index]
                counts.counts.append(Int32(field < positions.count ? positions[field].count : 0))
                let lengths = found.lengths[index]
                counts.lengths.append(Int32(field < lengths.count ? lengths[field] : 0))
            }
        }
        return score(counts)
    }

    /// Several words' counts as one list: per record, the occurrences added.
    private static func unite(_ lists: [SearchCounts], fields: Int) -> SearchCounts {
        var byID: [RecordID: Int] = [:]
        var result = SearchCounts()
        for list in lists {
            for index in list.ids.indices {
                let range = (index * fields)..<((index + 1) * fields)
                if let found = byID[list.ids[index]] {
                    for field in 0..<fields {
                        result.counts[found * fields + field] += list.counts[range.lowerBound + field]
                    }
                } else {
                    byID[list.ids[index]] = result.ids.count
                    result.ids.append(list.ids[index])
                    result.live.append(true)
                    result.counts.append(contentsOf: list.counts[range])
                    result.lengths.append(contentsOf: list.lengths[range])
                }
            }
        }
        let order = RecordIDOrder.permutation(result.ids)
        var sorted = SearchCounts()
        for index in order {
            sorted.ids.append(result.ids[index])
            sorted.live.append(true)
            sorted.counts.append(contentsOf: result.counts[(index * fields)..<((index + 1) * fields)])
            sorted.lengths.append(contentsOf: result.lengths[(index * fields)..<((index + 1) * fields)])
        }
        return sorted
    }

    private func score(_ found: SearchCounts) -> SearchMatches {
        let fields = weights.count
        let idf = SearchScoring.idf(documents: reader.stats.documents, matching: found.count)
        var scores: [Double] = []
        scores.reserveCapacity(found.count)
        for index in 0..<found.count {
            var frequency = 0.0
            var length = 0.0
            for (field, weight) in weights.enumerated() {
                frequency += weight * Double(found.counts[index * fields + field])
                length += weight * Double(found.lengths[index * fields + field])
            }
            scores.append(
                SearchScoring.score(idf: idf, frequency: frequency, length: length, averageLength: averageLength))
        }
        return SearchMatches(ids: found.ids, scores: scores)
    }

    // MARK: Combining

    private static func intersect(_ a: SearchMatches, _ b: SearchMatches) -> SearchMatches {
        var result = SearchMatches()
        var i = 0
        var j = 0
        while i < a.ids.count, j < b.ids.count {
            if a.ids[i] < b.ids[j] {
                i += 1
            } else if b.ids[j] < a.ids[i] {
                j += 1
            } else {
                result.ids.append(a.ids[i])
                result.scores.append(a.scores[i] + b.scores[j])
                i += 1
                j += 1
            }
        }
        return result
    }

    private static func unite(_ a: SearchMatches, _ b: SearchMatches) -> SearchMatches {
        var result = SearchMatches()
        var i = 0
        var j = 0
        while i < a.ids.count || j < b.ids.count {
            if j == b.ids.count || (i < a.ids.count && a.ids[i] < b.ids[j]) {
                result.ids.append(a.ids[i])
                result.scores.append(a.scores[i])
                i += 1
            } else if i == a.ids.count || b.ids[j] < a.ids[i] {
                result.ids.append(b.ids[j])
                result.scores.append(b.scores[j])
                j += 1
            } else {
                result.ids.append(a.ids[i])
                result.scores.append(a.scores[i] + b.scores[j])
                i += 1
                j += 1
            }
        }
        return result
    }

    private static func subtract(_ a: SearchMatches, _ b: SearchMatches) -> SearchMatches {
        let removed = Set(b.ids)
        var result = SearchMatches()
        for (id, score) in zip(a.ids, a.scores) where !removed.contains(id) {
            result.ids.append(id)
            result.scores.append(score)
        }
        return result
    }
}
