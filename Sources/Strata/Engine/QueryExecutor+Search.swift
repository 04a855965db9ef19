import StrataStorage

/// Plans with a full-text search: the engine finds each search's matches in its index (the same
/// way on every backend), reads the candidate records by ID where a search narrows the whole
/// predicate, evaluates the rest of the predicate itself, and ranks by relevance.
extension QueryExecutor {
    static func searches(_ plan: FetchPlan) -> Bool {
        plan.predicate?.containsSearch == true || plan.sort.contains { $0.relevance != nil }
    }

    func fetchSearching(
        _ plan: FetchPlan, after position: RelevancePosition?, in transaction: any StorageReadTransaction
    ) throws -> KeysetRecords {
        let entity = try transaction.schema.requireEntity(plan.entity)
        var resolved = ResolvedSearches()
        if let predicate = plan.predicate {
            try resolve(predicate, entity, fetched: true, transaction, &resolved)
        }
        for key in plan.sort {
            guard let index = key.relevance else { continue }
            guard resolved.first[index] != nil else {
                throw StrataError(
                    .invalidQuery, entity: entity.name,
                    "sorting by relevance to \(index) needs a search of \(index) in the filter")
            }
        }
        let records = try searchedRecords(plan, after: position, entity, resolved, transaction)
        var lastScore: Double?
        if let index = plan.sort.first?.relevance, let last = records.last, let first = resolved.first[index] {
            lastScore = resolved.matches[first.parts]?.score(of: last.id)
        }
        return KeysetRecords(records: records, lastScore: lastScore)
    }

    private func searchedRecords(
        _ plan: FetchPlan, after position: RelevancePosition?, _ entity: EntityDescription,
        _ resolved: ResolvedSearches, _ transaction: any StorageReadTransaction
    ) throws -> [Record] {
        var evaluator = PredicateEvaluator(transaction)
        let predicate = plan.predicate ?? .constant(true)
        let narrowing = Self.narrowingSearch(predicate)
        if let position, narrowing == nil || narrowing != resolved.first[position.index]?.parts {
            throw StrataError(.invalidQuery, entity: entity.name, Self.keysetNeedsNarrowing(position.index))
        }
        if let narrowing, var matches = resolved.matches[narrowing] {
            if var position {
                // The cursor's record where it ranks now (scores move as the index's statistics
                // do); the score it had when it still matched when it no longer does.
                position.score = matches.score(of: position.id) ?? position.score
                matches = matches.filter { position.follows(score: $0, id: $1) }
            }
            // The candidates satisfy the narrowing search: the rest of the predicate is checked,
            // and only the searches in it need their match sets.
            let rest = Self.removing(narrowing, from: predicate)
            evaluator.searchMatches = try resolved.sets(for: rest, entity, transaction.schema)
            if plan.sort.first?.relevance == narrowing.index, plan.sort.first?.ascending == true,
                resolved.first[narrowing.index]?.parts == narrowing, let limit = plan.limit
            {
                return try topRanked(matches, plan, limit: limit, rest, evaluator, transaction)
            }
            let records = try read(plan.entity, matches.ids, transaction).filter { try evaluator.matches($0, rest) }
            return try sortAndPage(records, plan, resolved, transaction)
        }
        evaluator.searchMatches = try resolved.sets(for: predicate, entity, transaction.schema)
        let (native, _) = split(predicate)
        let candidates = try transaction.fetch(FetchPlan(entity: plan.entity, predicate: native))
        let records = try candidates.filter { try evaluator.matches($0, predicate) }
        return try sortAndPage(records, plan, resolved, transaction)
    }

    static func keysetNeedsNarrowing(_ index: String) -> String {
        "keyset pages follow relevance to \(index) only when the filter requires that search (the whole filter, "
            + "or a part of its top-level AND): use offset pages"
    }

    /// Records in rank order until the page is full: a top-N by relevance reads only as many
    /// candidates as the page and the rest of the predicate need.
    private func topRanked(
        _ matches: SearchMatches, _ plan: FetchPlan, limit: Int, _ predicate: FilterExpression,
        _ evaluator: PredicateEvaluator, _ transaction: any StorageReadTransaction
    ) throws -> [Record] {
        let wanted = max(0, plan.offset) + max(0, limit)
        var found: [Record] = []
        var start = 0
        var chunk = max(64, wanted)
        // The best `chunk` first, without ranking every match; all of them only if those do not
        // fill the page.
        var ranked = matches.top(chunk)
        var complete = ranked.count == matches.ids.count
        while found.count < wanted, start < ranked.count || !complete {
            if start >= ranked.count {
                ranked = matches.ranked
                complete = true
                continue
            }
            let ids = Array(ranked[start..<min(ranked.count, start + chunk)])
            start += ids.count
            let records = try transaction.records(plan.entity, ids: ids)
            for id in ids {
                guard let record = records[id], try evaluator.matches(record, predicate) else { continue }
                found.append(record)
            }
            chunk *= 2
        }
        let begin = min(max(0, plan.offset), found.count)
        return Array(found[begin..<min(found.count, wanted)])
    }

    private func read(_ entity: String, _ ids: [RecordID], _ transaction: any StorageReadTransaction) throws
        -> [Record]
    {
        var records: [Record] = []
        records.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(ids.count, start + 1024)])
            start += chunk.count
            let found = try transaction.records(entity, ids: chunk)
            for id in chunk { if let record = found[id] { records.append(record) } }
        }
        return records
    }

    private func sortAndPage(
        _ records: [Record], _ plan: FetchPlan, _ resolved: ResolvedSearches, _ transaction: any StorageReadTransaction
    ) throws -> [Record] {
        var ranks: [String: [RecordID: Int]] = [:]
        for key in plan.sort {
            guard let index = key.relevance, ranks[index] == nil, let first = resolved.first[index],
                let matches = resolved.matches[first.parts]
            else { continue }
            ranks[index] = Dictionary(
                matches.ranked.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return PredicateEvaluator.sortAndPage(
            records, plan, positions: try positions(plan.sort, in: transaction), ranks: ranks)
    }

    /// The predicate without the narrowing search (true when it was the whole predicate).
    private static func removing(_ search: SearchKeyParts, from predicate: FilterExpression) -> FilterExpression {
        switch predicate {
        case .search(let index, let query) where SearchKeyParts(index: index, query: query) == search:
            return .constant(true)
        case .and(let parts):
            var rest = parts
            if let position = rest.firstIndex(where: { $0 == .search(index: search.index, search.query) }) {
                rest.remove(at: position)
            }
            return rest.isEmpty ? .constant(true) : rest.count == 1 ? rest[0] : .and(rest)
        default:
            return predicate
        }
    }

    /// The search that the whole predicate implies: the predicate itself, or one of its
    /// top-level conjuncts.
    static func narrowingSearch(_ predicate: FilterExpression) -> SearchKeyParts? {
        switch predicate {
        case .search(let index, let query): return SearchKeyParts(index: index, query: query)
        case .and(let parts):
            for part in parts {
                if case .search(let index, let query) = part { return SearchKeyParts(index: index, query: query) }
            }
            return nil
        default: return nil
        }
    }

    /// Every search of the predicate, those under relationships included (for their entity).
    private func resolve(
        _ expression: FilterExpression, _ entity: EntityDescription, fetched: Bool,
        _ transaction: any StorageReadTransaction, _ resolved: inout ResolvedSearches
    ) throws {
        switch expression {
        case .search(let index, let query):
            let key = SearchKey(entity: entity.name, index: index, query: query)
            if fetched, resolved.first[index] == nil {
                resolved.first[index] = (SearchKeyParts(index: index, query: query), key)
            }
            guard resolved.all[key] == nil else { return }
            guard let description = entity.searchIndex(index) else {
                throw StrataError(.invalidQuery, entity: entity.name, "\(entity.name) has no full-text index \(index)")
            }
            let reader = try SearchIndexReader(entity: entity.name, index: description, transaction: transaction)
            let matches = try SearchEvaluator(reader).matches(query)
            resolved.all[key] = matches
            if fetched { resolved.matches[SearchKeyParts(index: index, query: query)] = matches }
        case .and(let parts), .or(let parts):
            for part in parts { try resolve(part, entity, fetched: fetched, transaction, &resolved) }
        case .not(let inner):
            try resolve(inner, entity, fetched: fetched, transaction, &resolved)
        case .relatedOne(let name, let inner), .anyRelated(let name, let inner), .noneRelated(let name, let inner):
            guard inner.containsSearch, let relationship = entity.relationship(name) else { return }
            let destination = try transaction.schema.requireEntity(relationship.destination)
            try resolve(inner, destination, fetched: false, transaction, &resolved)
        case .constant, .compare, .inList, .between, .text, .isNil, .elements, .documentPath:
            return
        }
    }
}

struct SearchKeyParts: Hashable {
    var index: String
    var query: SearchQuery
}

/// A plan's searches as found: the matched IDs of every search (by entity, index and query),
/// and for the fetched entity the scored matches and the first search of each index (which a
/// relevance key ranks by).
struct ResolvedSearches {
    var all: [SearchKey: SearchMatches] = [:]
    var matches: [SearchKeyParts: SearchMatches] = [:]
    var first: [String: (parts: SearchKeyParts, key: SearchKey)] = [:]

    /// The match sets of the searches in `expression` (of `entity`, and under its relationships of
    /// their destinations): what a `PredicateEvaluator` evaluating it looks records up in.
    func sets(for expression: FilterExpression, _ entity: EntityDescription, _ schema: Schema) throws
        -> [SearchKey: Set<RecordID>]
    {
        var sets: [SearchKey: Set<RecordID>] = [:]
        func collect(_ expression: FilterExpression, _ entity: EntityDescription) throws {
            switch expression {
            case .search(let index, let query):
                let key = SearchKey(entity: entity.name, index: index, query: query)
                if sets[key] == nil { sets[key] = Set(all[key]?.ids ?? []) }
            case .and(let parts), .or(let parts):
                for part in parts { try collect(part, entity) }
            case .not(let inner):
                try collect(inner, entity)
            case .relatedOne(let name, let inner), .anyRelated(let name, let inner), .noneRelated(let name, let inner):
                guard inner.containsSearch, let relationship = entity.relationship(name) else { return }
                try collect(inner, try schema.requireEntity(relationship.destination))
            case .constant, .compare, .inList, .between, .text, .isNil, .elements, .documentPath:
                return
            }
        }
        try collect(expression, entity)
        return sets
    }
}
