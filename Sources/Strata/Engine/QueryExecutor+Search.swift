import StrataStorage

/// Plans with a full-text search: the engine finds each search's matches in its index (the same
/// way on every backend), reads the candidate records by ID where a search narrows the whole
/// predicate, evaluates the rest of the predicate itself, and ranks by relevance.
extension QueryExecutor {
    static func searches(_ plan: FetchPlan) -> Bool {
        plan.predicate?.containsSearch == true || plan.sort.contains { $0.relevance != nil }
    }

    func fetchSearching(_ plan: FetchPlan, in transaction: any StorageReadTransaction) throws -> [Record] {
        let entity = try transaction.schema.requireEntity(plan.entity)
        var evaluator = PredicateEvaluator(transaction)
        var resolved = ResolvedSearches()
        if let predicate = plan.predicate {
            try resolve(predicate, entity, fetched: true, transaction, &resolved)
        }
        evaluator.searchMatches = resolved.sets
        for key in plan.sort {
            guard let index = key.relevance else { continue }
            guard resolved.first[index] != nil else {
                throw StrataError(
                    .invalidQuery, entity: entity.name,
                    "sorting by relevance to \(index) needs a search of \(index) in the filter")
            }
        }
        let predicate = plan.predicate ?? .constant(true)
        let narrowing = Self.narrowingSearch(predicate)
        if let narrowing, let matches = resolved.matches[narrowing] {
            if plan.sort.count == 1, let only = plan.sort.first, only.relevance == narrowing.index, only.ascending,
                let limit = plan.limit
            {
                return try topRanked(matches.ranked, plan, limit: limit, predicate, evaluator, transaction)
            }
            let records = try read(plan.entity, matches.ids, transaction).filter {
                try evaluator.matches($0, predicate)
            }
            return try sortAndPage(records, plan, resolved, transaction)
        }
        let (native, _) = split(predicate)
        let candidates = try transaction.fetch(FetchPlan(entity: plan.entity, predicate: native))
        let records = try candidates.filter { try evaluator.matches($0, predicate) }
        return try sortAndPage(records, plan, resolved, transaction)
    }

    /// Records in rank order until the page is full: a top-N by relevance reads only as many
    /// candidates as the page and the rest of the predicate need.
    private func topRanked(
        _ ranked: [RecordID], _ plan: FetchPlan, limit: Int, _ predicate: FilterExpression,
        _ evaluator: PredicateEvaluator, _ transaction: any StorageReadTransaction
    ) throws -> [Record] {
        let wanted = max(0, plan.offset) + max(0, limit)
        var found: [Record] = []
        var start = 0
        var chunk = max(64, wanted)
        while found.count < wanted, start < ranked.count {
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

    /// The search that the whole predicate implies: the predicate itself, or one of its
    /// top-level conjuncts.
    private static func narrowingSearch(_ predicate: FilterExpression) -> SearchKeyParts? {
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
            guard resolved.sets[key] == nil else { return }
            guard let description = entity.searchIndex(index) else {
                throw StrataError(.invalidQuery, entity: entity.name, "\(entity.name) has no full-text index \(index)")
            }
            let reader = try SearchIndexReader(entity: entity.name, index: description, transaction: transaction)
            let matches = try SearchEvaluator(reader).matches(query)
            resolved.sets[key] = Set(matches.ids)
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
    var sets: [SearchKey: Set<RecordID>] = [:]
    var matches: [SearchKeyParts: SearchMatches] = [:]
    var first: [String: (parts: SearchKeyParts, key: SearchKey)] = [:]
}
