import StrataStorage

/// Fetch plans over the in-memory tables: pages read in index order and stopped when full; other
/// plans take their candidates from an index (equality, list or range) before the evaluator.
extension InMemoryReading {
    func fetch(_ plan: FetchPlan) throws -> [Record] {
        let table = try table(plan.entity)
        if let page = try idOrderedPage(plan, table) { return page }
        if let page = try orderedPage(plan, table) { return page }
        return PredicateEvaluator.sortAndPage(try matching(plan, table), plan)
    }

    func count(_ plan: FetchPlan) throws -> Int {
        try matching(plan, try table(plan.entity)).count
    }

    private static func conjuncts(_ predicate: FilterExpression?) -> [FilterExpression] {
        switch predicate {
        case .and(let parts)?: parts
        case let single?: [single]
        case nil: []
        }
    }

    /// The index keys the predicate bounds `property` to (``FilterExpression/bounds(of:type:)``),
    /// and whether it bounds it at all: a bounded property excludes nulls, which the index does not hold.
    private func bounds(of property: String, in predicate: FilterExpression, _ entity: EntityDescription)
        -> (lower: InMemoryState.IndexKey?, upper: InMemoryState.IndexKey?, bounded: Bool)
    {
        guard let type = entity.attribute(property)?.type else { return (nil, nil, false) }
        let (lower, upper) = predicate.bounds(of: property, type: type)
        func key(_ value: Value?) -> InMemoryState.IndexKey? {
            value.map { InMemoryState.IndexKey(value: InMemoryState.indexKey($0)) }
        }
        return (key(lower), key(upper), lower != nil || upper != nil)
    }

    /// A page in ID order whose filter only bounds the ID — a keyset page (`id > last`), or the
    /// first — walked from the bound in the table's ID set and stopped when full.
    private func idOrderedPage(_ plan: FetchPlan, _ table: InMemoryState.Table) throws -> [Record]? {
        try idWalk(plan, table)?.page
    }

    /// ``idOrderedPage(_:_:)`` with how many IDs the walk visited (tests prove it is about a page).
    /// With no limit (a fetch of every record, say) the whole walk is still the answer in ID
    /// order: the table's ID set is already sorted, so nothing is sorted again.
    func idWalk(_ plan: FetchPlan, _ table: InMemoryState.Table) throws -> (page: [Record], walked: Int)? {
        let limit = plan.limit ?? Int.max
        let ascending: Bool
        switch plan.sort.count {
        case 0: ascending = true
        case 1 where plan.sort[0].property == "id": ascending = plan.sort[0].ascending
        default: return nil
        }
        var lower: RecordID?
        var upper: RecordID?
        for conjunct in Self.conjuncts(plan.predicate) {
            switch conjunct {
            case .compare("id", .greater, let value, []), .compare("id", .greaterOrEqual, let value, []):
                guard let id = RecordID(value) else { return nil }
                lower = lower.map { max($0, id) } ?? id
            case .compare("id", .less, let value, []), .compare("id", .lessOrEqual, let value, []):
                guard let id = RecordID(value) else { return nil }
                upper = upper.map { min($0, id) } ?? id
            default:
                return nil
            }
        }
        if limit == 0 { return ([], 0) }
        // The walk's bounds are inclusive; the predicate itself excludes a strict bound.
        let evaluator = PredicateEvaluator(self)
        var page: [Record] = []
        if plan.predicate == nil { page.reserveCapacity(max(0, min(limit, table.records.count - plan.offset))) }
        var skipped = 0
        var walked = 0
        try table.ids.walk(from: lower, through: upper, ascending: ascending) { id in
            walked += 1
            guard let record = table.records[id] else { return true }
            if let predicate = plan.predicate, try !evaluator.matches(record, predicate) { return true }
            if skipped < plan.offset {
                skipped += 1
                return true
            }
            page.append(record)
            return page.count < limit
        }
        return (page, walked)
    }

    /// A page read in order from an index and stopped when full, however many records match:
    /// sorted by one indexed attribute that a conjunct bounds, or (no sort keys) pinned by an
    /// equality on an indexed property, whose IDs the index keeps in order.
    private func orderedPage(_ plan: FetchPlan, _ table: InMemoryState.Table) throws -> [Record]? {
        guard let limit = plan.limit, let predicate = plan.predicate, let entity = schema.entity(plan.entity) else {
            return nil
        }
        let conjuncts = Self.conjuncts(predicate)
        let evaluator = PredicateEvaluator(self)
        var page: [Record] = []
        var skipped = 0
        func visit(_ id: RecordID) throws -> Bool {
            guard let record = table.records[id], try evaluator.matches(record, predicate) else { return true }
            if skipped < plan.offset { skipped += 1 } else { page.append(record) }
            return page.count < limit
        }
        if limit == 0 { return [] }
        if plan.sort.count == 1, let key = plan.sort.first, let keys = table.orderedKeys(key.property),
            let index = table.index(key.property)
        {
            let bounds = bounds(of: key.property, in: predicate, entity)
            guard bounds.bounded else { return nil }
            var full = false
            try keys.walk(from: bounds.lower, through: bounds.upper, ascending: key.ascending) { indexKey in
                try index[indexKey.value]?.walk { id in
                    full = try !visit(id)
                    return !full
                }
                return !full
            }
            return page
        }
        guard plan.sort.isEmpty else { return nil }
        for conjunct in conjuncts {
            guard case .compare(let property, .equal, let value, []) = conjunct, !value.isNull,
                let index = table.index(property)
            else { continue }
            try index[InMemoryState.indexKey(value)]?.walk(visit)
            return page
        }
        return nil
    }

    /// Candidates from an index when the predicate pins or bounds an indexed property, then the evaluator.
    private func matching(_ plan: FetchPlan, _ table: InMemoryState.Table) throws -> [Record] {
        guard let predicate = plan.predicate else { return Array(table.records.values) }
        let candidates: [Record]
        if let ids = indexedCandidates(predicate, in: table, plan.entity) {
            candidates = ids.compactMap { table.records[$0] }
            // An ID lookup is answered exactly by the table itself; re-evaluating `id IN (…)` per
            // record would scan the list once per candidate.
            switch predicate {
            case .compare("id", .equal, _, []), .inList("id", _, []): return candidates
            default: break
            }
        } else {
            candidates = Array(table.records.values)
        }
        let evaluator = PredicateEvaluator(self)
        return try candidates.filter { try evaluator.matches($0, predicate) }
    }

    /// Distinct candidate IDs: from an equality or list (the smallest such set among the
    /// conjuncts), else from a range over an ordered index; `nil` when no index applies.
    private func indexedCandidates(_ predicate: FilterExpression, in table: InMemoryState.Table, _ entityName: String)
        -> [RecordID]?
    {
        func exact(_ expression: FilterExpression) -> [RecordID]? {
            switch expression {
            case .compare("id", .equal, let value, []):
                return RecordID(value).map { [$0] } ?? []
            case .inList("id", let values, []):
                return Array(Set(values.compactMap(RecordID.init)))
            case .compare(let property, .equal, let value, []):
                guard let index = table.index(property), !value.isNull else { return nil }
                return index[InMemoryState.indexKey(value)]?.elements ?? []
            case .inList(let property, let values, []):
                guard let index = table.index(property), !values.contains(where: \.isNull) else { return nil }
                var keys = Set<Value>()
                var ids: [RecordID] = []
                for value in values where keys.insert(InMemoryState.indexKey(value)).inserted {
                    ids += index[InMemoryState.indexKey(value)]?.elements ?? []
                }
                return ids
            default:
                return nil
            }
        }
        let conjuncts = Self.conjuncts(predicate)
        if let smallest = conjuncts.compactMap(exact).min(by: { $0.count < $1.count }) { return smallest }
        guard let entity = schema.entity(entityName) else { return nil }
        for conjunct in conjuncts {
            let property: String
            switch conjunct {
            case .compare(let name, .greater, _, []), .compare(let name, .greaterOrEqual, _, []),
                .compare(let name, .less, _, []), .compare(let name, .lessOrEqual, _, []), .between(let name, _, _):
                property = name
            default:
                continue
            }
            guard let keys = table.orderedKeys(property), let index = table.index(property) else { continue }
            let bounds = bounds(of: property, in: conjunct, entity)
            guard bounds.bounded else { continue }
            var ids: [RecordID] = []
            keys.walk(from: bounds.lower, through: bounds.upper) { key in
                ids += index[key.value]?.elements ?? []
                return true
            }
            return ids
        }
        return nil
    }
}
