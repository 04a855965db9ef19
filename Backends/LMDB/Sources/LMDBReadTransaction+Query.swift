import CLMDB
import Foundation
import StrataStorage

/// Fetch plans: ID lookups, index-driven candidates and pages, the rest through the engine's evaluator.
extension LMDBReadTransaction {
    func fetch(_ plan: FetchPlan) throws -> [Record] {
        if let page = try idPage(plan) { return page }
        if let page = try sortedByIndex(plan) { return page }
        if let page = try equalityPage(plan) { return page }
        return PredicateEvaluator.sortAndPage(try matching(plan), plan)
    }

    /// A page sorted by one indexed attribute of fixed-size type, read in index order and stopped
    /// as soon as the page is full. Nulls sit first in the index (the contract's ascending order);
    /// descending walks keys backwards but each key's IDs forwards, keeping the ID tie-break.
    fileprivate func sortedByIndex(_ plan: FetchPlan) throws -> [Record]? {
        guard let limit = plan.limit, plan.sort.count == 1, let key = plan.sort.first else { return nil }
        let entity = try entity(plan.entity)
        guard let attribute = entity.attribute(key.property), LMDBKeys.supportsRanges(attribute.type),
            entity.indexedProperties.contains(key.property)
        else { return nil }
        let index = try database(LMDBLayout.index(entity.name, key.property))
        let recordsDB = try database(LMDBLayout.records(entity.name))
        let evaluator = PredicateEvaluator(self)
        var page: [Record] = []
        var skipped = 0
        var cursor: OpaquePointer?
        try check(mdb_cursor_open(txn, index, &cursor))
        defer { mdb_cursor_close(cursor) }
        var keyVal = MDB_val()
        var dataVal = MDB_val()
        // Visits every ID of the key under the cursor, in ID order; false once the page is full.
        // The IDs are read with their own cursor: after MDB_LAST, LMDB's cursor is flagged at its
        // end, and MDB_NEXT_DUP on the last key stops after the first duplicate.
        func visitKey() throws -> Bool {
            let keyBytes = Array(UnsafeRawBufferPointer(start: keyVal.mv_data, count: keyVal.mv_size))
            var full = false
            try walkDuplicates(index, keyBytes) { idBytes in
                let id = try LMDBKeys.decodeID(idBytes, kind: entity.idKind)
                guard let bytes = try get(recordsDB, idBytes) else { return true }
                let record = try decodeRecord(bytes, id: id, entity)
                if try plan.predicate.map({ try evaluator.matches(record, $0) }) ?? true {
                    if skipped < plan.offset { skipped += 1 } else { page.append(record) }
                    if page.count >= limit { full = true }
                }
                return !full
            }
            return !full
        }
        if limit == 0 { return [] }
        // A range on the sorted attribute bounds the walk: start at its near end (a seek, not a
        // walk from the first key) and stop past its far end. The evaluator still checks each record.
        let bounds = Self.bounds(of: key.property, in: plan.predicate, entity)
        let (start, stop) = key.ascending ? (bounds.lower, bounds.upper) : (bounds.upper, bounds.lower)
        var code: Int32
        if let start {
            code = start.withUnsafeBytes { raw in
                keyVal = MDB_val(mv_size: raw.count, mv_data: UnsafeMutableRawPointer(mutating: raw.baseAddress))
                return mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_SET_RANGE)
            }
            if !key.ascending {
                // SET_RANGE finds the first key at or after the bound; walking down starts at the
                // last key at or before it.
                if code == MDB_NOTFOUND {
                    code = mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_LAST)
                } else if code == 0, Self.bytes(keyVal).lexicographicallyPrecedes(start) == false,
                    Self.bytes(keyVal) != start
                {
                    code = mdb_cursor_get(cursor, &keyVal, &dataVal, MDB_PREV_NODUP)
                }
            }
        } else {
            code = mdb_cursor_get(cursor, &keyVal, &dataVal, key.ascending ? MDB_FIRST : MDB_LAST)
        }
        while code == 0 {
            if let stop {
                let current = Self.bytes(keyVal)
                let beyond =
                    key.ascending ? stop.lexicographicallyPrecedes(current) : current.lexicographicallyPrecedes(stop)
                if beyond { break }
            }
            guard try visitKey() else { break }
            code = mdb_cursor_get(cursor, &keyVal, &dataVal, key.ascending ? MDB_NEXT_NODUP : MDB_PREV_NODUP)
        }
        if code != 0 && code != MDB_NOTFOUND { try check(code) }
        return page
    }

    /// A page in ID order (sorted by ID ascending, or unsorted) after an ID: the records database
    /// is keyed in ID order, so the walk seeks the ID and stops when the page is full — a keyset
    /// page (a migration's batches, `fetch(_:after:)` by ID) costs its size, not the store's.
    fileprivate func idPage(_ plan: FetchPlan) throws -> [Record]? {
        guard let limit = plan.limit, plan.sort.isEmpty || plan.sort == [SortKey("id")] else { return nil }
        let conjuncts: [FilterExpression]
        switch plan.predicate {
        case .and(let parts)?: conjuncts = parts
        case let single?: conjuncts = [single]
        case nil: conjuncts = []
        }
        let entity = try entity(plan.entity)
        var start: (key: [UInt8], inclusive: Bool)?
        for conjunct in conjuncts {
            guard case .compare("id", let op, let value, []) = conjunct, op == .greater || op == .greaterOrEqual,
                let id = RecordID(value), id.kind == entity.idKind, let key = LMDBKeys.lookupID(id)
            else { continue }
            start = (key, op == .greaterOrEqual)
        }
        // Without a seek this is the same walk as any unsorted fetch; only a keyset page gains.
        guard start != nil || plan.predicate == nil else { return nil }
        if limit == 0 { return [] }
        let recordsDB = try database(LMDBLayout.records(entity.name))
        let evaluator = PredicateEvaluator(self)
        var page: [Record] = []
        var skipped = 0
        try scan(recordsDB, from: start?.key) { key, bytes in
            if let start, !start.inclusive, key == start.key { return true }
            let record = try decodeRecord(bytes, id: try LMDBKeys.decodeID(key, kind: entity.idKind), entity)
            if let predicate = plan.predicate, !(try evaluator.matches(record, predicate)) { return true }
            if skipped < plan.offset { skipped += 1 } else { page.append(record) }
            return page.count < limit
        }
        return page
    }

    /// A page in ID order (no sort keys) under an equality on an indexed property: the index holds
    /// a key's IDs sorted, so records are read in order and only until the page is full, however
    /// many match.
    fileprivate func equalityPage(_ plan: FetchPlan) throws -> [Record]? {
        guard let limit = plan.limit, plan.sort.isEmpty else { return nil }
        let entity = try entity(plan.entity)
        let conjuncts: [FilterExpression]
        switch plan.predicate {
        case .and(let parts)?: conjuncts = parts
        case let single?: conjuncts = [single]
        case nil: return nil
        }
        var pinned: (property: String, value: Value)?
        for conjunct in conjuncts {
            if case .compare(let property, .equal, let value, []) = conjunct, property != "id", !value.isNull,
                entity.indexedProperties.contains(property)
            {
                pinned = (property, value)
                break
            }
        }
        guard let (property, value) = pinned, let predicate = plan.predicate else { return nil }
        if limit == 0 { return [] }
        let normalized: Value
        if entity.attribute(property)?.type == .double, case .int(let number) = value {
            normalized = .double(Double(number))
        } else {
            normalized = value
        }
        let index = try database(LMDBLayout.index(entity.name, property))
        let recordsDB = try database(LMDBLayout.records(entity.name))
        let evaluator = PredicateEvaluator(self)
        var page: [Record] = []
        var skipped = 0
        try walkDuplicates(index, LMDBKeys.indexKey(normalized)) { idBytes in
            guard let bytes = try get(recordsDB, idBytes) else { return true }
            let record = try decodeRecord(bytes, id: try LMDBKeys.decodeID(idBytes, kind: entity.idKind), entity)
            guard try evaluator.matches(record, predicate) else { return true }
            if skipped < plan.offset { skipped += 1 } else { page.append(record) }
            return page.count < limit
        }
        return page
    }

    static func bytes(_ value: MDB_val) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: value.mv_data, count: value.mv_size))
    }

    /// The index keys the predicate bounds `property` to (``FilterExpression/bounds(of:type:)``;
    /// nulls never match a range, so a lower bound also skips them).
    static func bounds(of property: String, in predicate: FilterExpression?, _ entity: EntityDescription) -> (
        lower: [UInt8]?, upper: [UInt8]?
    ) {
        guard let predicate, let type = entity.attribute(property)?.type else { return (nil, nil) }
        let (lower, upper) = predicate.bounds(of: property, type: type)
        func key(_ value: Value?) -> [UInt8]? {
            guard let value else { return nil }
            if type == .double, case .int(let number) = value { return LMDBKeys.indexKey(.double(Double(number))) }
            return LMDBKeys.indexKey(value)
        }
        return (key(lower), key(upper))
    }

    /// Without a predicate, the records database's entry count (no record is read); otherwise the
    /// matches counted as they stream past, none kept.
    func count(_ plan: FetchPlan) throws -> Int {
        guard plan.predicate != nil else {
            let recordsDB = try database(LMDBLayout.records(try entity(plan.entity).name))
            var stat = MDB_stat()
            try check(mdb_stat(txn, recordsDB, &stat))
            return stat.ms_entries
        }
        var count = 0
        try forEachMatching(plan) { _ in count += 1 }
        return count
    }

    fileprivate func matching(_ plan: FetchPlan) throws -> [Record] {
        var found: [Record] = []
        try forEachMatching(plan) { found.append($0) }
        return found
    }

    /// Candidates from a secondary index when a conjunct pins an indexed property (equality, a
    /// list, or a range over a fixed-size type), else the whole entity; then the exact predicate.
    fileprivate func forEachMatching(_ plan: FetchPlan, _ visit: (Record) throws -> Void) throws {
        let entity = try entity(plan.entity)
        let recordsDB = try database(LMDBLayout.records(entity.name))
        // Lookups by ID read the records database directly, and need no further evaluation.
        switch plan.predicate {
        case .compare("id", .equal, let value, [])?:
            if let record = try RecordID(value).flatMap({ try record(entity.name, id: $0) }) { try visit(record) }
            return
        case .inList("id", let values, [])?:
            for id in Set(values.compactMap(RecordID.init)) {
                if let record = try record(entity.name, id: id) { try visit(record) }
            }
            return
        default:
            break
        }
        let evaluator = PredicateEvaluator(self)
        func offer(_ record: Record) throws {
            if let predicate = plan.predicate, try !evaluator.matches(record, predicate) { return }
            try visit(record)
        }
        if let predicate = plan.predicate, let ids = try indexedCandidates(predicate, entity) {
            for id in Set(ids) {
                if let key = LMDBKeys.lookupID(id), let bytes = try get(recordsDB, key) {
                    try offer(try decodeRecord(bytes, id: id, entity))
                }
            }
        } else {
            try scan(recordsDB, from: nil) { key, value in
                try offer(try decodeRecord(value, id: try LMDBKeys.decodeID(key, kind: entity.idKind), entity))
                return true
            }
        }
    }

    fileprivate func indexedCandidates(_ predicate: FilterExpression, _ entity: EntityDescription) throws -> [RecordID]?
    {
        func index(_ property: String) throws -> MDB_dbi? {
            entity.indexedProperties.contains(property) ? try database(LMDBLayout.index(entity.name, property)) : nil
        }
        func normalized(_ property: String, _ value: Value) -> Value {
            if entity.attribute(property)?.type == .double, case .int(let number) = value {
                return .double(Double(number))
            }
            return value
        }
        func ids(_ dbi: MDB_dbi, _ value: Value, _ property: String) throws -> [RecordID] {
            try duplicates(dbi, LMDBKeys.indexKey(normalized(property, value))).map {
                try LMDBKeys.decodeID($0, kind: entity.idKind)
            }
        }
        func rangeAllowed(_ property: String) -> Bool {
            if let attribute = entity.attribute(property) { return LMDBKeys.supportsRanges(attribute.type) }
            return false
        }
        func range(_ dbi: MDB_dbi, _ property: String, lower: Value?, upper: Value?) throws -> [RecordID] {
            // Ranges never include nulls: start after the null key.
            let lowerKey = lower.map { LMDBKeys.indexKey(normalized(property, $0)) } ?? [1]
            let upperKey = upper.map { LMDBKeys.indexKey(normalized(property, $0)) }
            var found: [RecordID] = []
            try scan(dbi, from: lowerKey) { key, value in
                if let upperKey, key.lexicographicallyPrecedes(upperKey) == false, key != upperKey { return false }
                found.append(try LMDBKeys.decodeID(value, kind: entity.idKind))
                return true
            }
            return found
        }
        switch predicate {
        case .compare(let property, .equal, let value, []) where !value.isNull:
            guard let dbi = try index(property) else { return nil }
            return try ids(dbi, value, property)
        case .inList(let property, let values, []) where !values.contains(where: \.isNull):
            guard let dbi = try index(property) else { return nil }
            return try values.flatMap { try ids(dbi, $0, property) }
        case .between(let property, let lower, let upper) where rangeAllowed(property):
            guard let dbi = try index(property) else { return nil }
            return try range(dbi, property, lower: lower, upper: upper)
        case .compare(let property, let op, let value, [])
        where op != .equal && op != .notEqual && !value.isNull && rangeAllowed(property):
            guard let dbi = try index(property) else { return nil }
            switch op {
            case .greater, .greaterOrEqual: return try range(dbi, property, lower: value, upper: nil)
            default: return try range(dbi, property, lower: nil, upper: value)
            }
        case .and(let parts):
            for part in parts { if let found = try indexedCandidates(part, entity) { return found } }
            return nil
        default:
            return nil
        }
    }
}
