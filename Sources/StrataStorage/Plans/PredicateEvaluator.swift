import Foundation

/// The reference implementation of ``FilterExpression`` semantics. The engine uses it for
/// whatever a backend declines; a backend may use it too (the in-memory backend does).
public struct PredicateEvaluator {
    let transaction: any StorageReadTransaction
    /// The records each full-text search matches, as the engine found them in its index
    /// (``FilterExpression/search(index:_:)``); a search not listed matches nothing.
    public var searchMatches: [SearchKey: Set<RecordID>] = [:]

    /// An evaluator that follows relationships through `transaction`.
    public init(_ transaction: any StorageReadTransaction) {
        self.transaction = transaction
    }

    /// Whether `record` satisfies `expression`.
    public func matches(_ record: Record, _ expression: FilterExpression) throws -> Bool {
        switch expression {
        case .constant(let flag):
            return flag
        case .compare(let property, let op, let constant, let options):
            return Self.compare(record[property], op, constant, options)
        case .inList(let property, let constants, let options):
            let value = record[property]
            if value.isNull { return constants.contains(where: \.isNull) }
            return constants.contains { Self.compare(value, .equal, $0, options) }
        case .between(let property, let lower, let upper):
            let value = record[property]
            guard let low = Value.compare(value, lower), let high = Value.compare(value, upper) else { return false }
            return low != .ascending && high != .descending
        case .text(let property, let op, let needle, let options):
            guard case .string(let haystack) = record[property] else { return false }
            return Self.textMatches(haystack, op, needle, options)
        case .isNil(let property):
            return record[property].isNull
        case .elements(let property, let test):
            return test.matches(record[property])
        case .documentPath(let property, let path, let op, let constant):
            guard case .document(let text) = record[property] else {
                return Self.compare(.null, op, constant)
            }
            return Self.compare(CollectionForm.value(at: path, in: text), op, constant)
        case .search(let index, let query):
            return searchMatches[SearchKey(entity: record.entity, index: index, query: query)]?.contains(record.id)
                == true
        case .and(let parts):
            for part in parts where try !matches(record, part) { return false }
            return true
        case .or(let parts):
            for part in parts where try matches(record, part) { return true }
            return false
        case .not(let inner):
            return try !matches(record, inner)
        case .relatedOne(let name, let inner):
            let relationship = try relationship(name, of: record.entity)
            guard let id = RecordID(record[name]),
                let destination = try transaction.record(relationship.destination, id: id)
            else { return false }
            return try matches(destination, inner)
        case .anyRelated(let name, let inner):
            return try anyDestination(of: record, name, matching: inner)
        case .noneRelated(let name, let inner):
            return try !anyDestination(of: record, name, matching: inner)
        }
    }

    private func anyDestination(of record: Record, _ name: String, matching inner: FilterExpression) throws -> Bool {
        let relationship = try relationship(name, of: record.entity)
        for destination in try transaction.relatedRecords(of: record, relationship)
        where try matches(destination, inner) {
            return true
        }
        return false
    }

    private func relationship(_ name: String, of entity: String) throws -> RelationshipDescription {
        guard let relationship = transaction.schema.entity(entity)?.relationship(name) else {
            throw StrataError(
                .unknownProperty, entity: entity, property: name, "\(name) is not a relationship of \(entity)")
        }
        return relationship
    }

    /// Comparison with the contract's null semantics.
    public static func compare(_ value: Value, _ op: ComparisonOperator, _ constant: Value, _ options: TextOptions = [])
        -> Bool
    {
        if value.isNull || constant.isNull {
            switch op {
            case .equal: return value.isNull && constant.isNull
            case .notEqual: return value.isNull != constant.isNull
            default: return false
            }
        }
        var left = value
        var right = constant
        if !options.isEmpty, case .string(let l) = value, case .string(let r) = constant {
            left = .string(fold(l, options))
            right = .string(fold(r, options))
        }
        switch op {
        case .equal: return Value.predicateEquals(left, right)
        case .notEqual: return !Value.predicateEquals(left, right)
        default:
            guard let order = Value.compare(left, right) else { return false }
            switch op {
            case .less: return order == .ascending
            case .lessOrEqual: return order != .descending
            case .greater: return order == .descending
            default: return order != .ascending
            }
        }
    }

    /// The text operators, shared with backends that evaluate them natively (SQLite registers this
    /// as an SQL function) so every backend matches identically.
    public static func textMatches(_ haystack: String, _ op: TextOperator, _ needle: String, _ options: TextOptions)
        -> Bool
    {
        let text = fold(haystack, options)
        let pattern = fold(needle, options)
        switch op {
        case .contains: return pattern.isEmpty || text.contains(pattern)
        case .hasPrefix: return text.hasPrefix(pattern)
        case .hasSuffix: return text.hasSuffix(pattern)
        }
    }

    /// Folds text for case- and diacritic-insensitive comparison.
    public static func fold(_ text: String, _ options: TextOptions) -> String {
        if options.isEmpty { return text }
        var compareOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { compareOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { compareOptions.insert(.diacriticInsensitive) }
        // Folding can leave text decomposed; the result is compared and ordered as NFC like any text.
        return ValueRules.nfc(text.folding(options: compareOptions, locale: nil))
    }

    /// Applies a plan's sort keys, offset and limit to records that already match its predicate —
    /// the contract's ordering and paging, for backends that evaluate in memory. `positions` holds
    /// each position key's list (member ID to index); the engine reads them, a backend has none.
    public static func sortAndPage(
        _ records: [Record], _ plan: FetchPlan, positions: [ListPosition: [RecordID: Int]] = [:],
        ranks: [String: [RecordID: Int]] = [:]
    ) -> [Record] {
        var sorted = records
        sort(&sorted, by: plan.sort, positions: positions, ranks: ranks)
        let start = min(max(0, plan.offset), sorted.count)
        let end = plan.limit.map { min(sorted.count, start + max(0, $0)) } ?? sorted.count
        return start == 0 && end == sorted.count ? sorted : Array(sorted[start..<end])
    }

    /// Sorts records by the keys, nulls first ascending, ID ascending as the final key. A position
    /// key orders a list's members by their index (reversed descending) and puts every other
    /// record after them in both directions.
    public static func sort(
        _ records: inout [Record], by keys: [SortKey], positions: [ListPosition: [RecordID: Int]] = [:],
        ranks: [String: [RecordID: Int]] = [:]
    ) {
        guard records.count > 1 else { return }
        if keys.isEmpty, sortByNumericID(&records) { return }
        // Each key's values and the IDs are read once, and positions are sorted instead of the
        // records: moving a record copies its dictionary reference (a retain and a release per
        // move), and reading a key looks it up by name — both n log n times otherwise.
        let columns = keys.map { key in
            if let index = key.relevance {
                let rank = ranks[index] ?? [:]
                return records.map { record in
                    rank[record.id].map { Value.int(Int64(key.ascending ? $0 : -$0)) } ?? .int(.max)
                }
            }
            guard let list = key.position else { return records.map { $0[key.property] } }
            let indexes = positions[list] ?? [:]
            return records.map { record in
                indexes[record.id].map { Value.int(Int64(key.ascending ? $0 : -$0)) } ?? .int(.max)
            }
        }
        let ascending = keys.map { $0.position != nil || $0.relevance != nil || $0.ascending }
        let ids = records.map(\.id)
        func precedes(_ i: Int, _ j: Int) -> Bool {
            for (column, ascending) in zip(columns, ascending) {
                switch Value.sortOrder(column[i], column[j]) {
                case .same: continue
                case .ascending: return ascending
                case .descending: return !ascending
                }
            }
            return ids[i] < ids[j]
        }
        // Backends often hand records over already in order (an ID-ordered scan or index walk).
        if (1..<records.count).allSatisfy({ !precedes($0, $0 - 1) }) { return }
        let order = records.indices.sorted(by: precedes)
        records = order.map { records[$0] }
    }

    /// ID order (the default) when every ID is a UUID or every ID an integer: the IDs become
    /// 128-bit unsigned numbers in the contract's order (a UUID's bytes big-endian; an integer
    /// with its sign bit flipped) and are sorted as plain integers, several times faster than
    /// comparing ``RecordID``s. False, with the records untouched, for any other mix.
    private static func sortByNumericID(_ records: inout [Record]) -> Bool {
        var keys: [(high: UInt64, low: UInt64, position: Int)] = []
        keys.reserveCapacity(records.count)
        // Read through the buffer: iterating the array would copy each record (a retain and a
        // release of its values, a cache miss apiece when the records are many).
        let complete = records.withUnsafeBufferPointer { buffer -> Bool in
            switch buffer[0].id {
            case .uuid:
                for position in buffer.indices {
                    guard case .uuid(let uuid) = buffer[position].id else { return false }
                    let (high, low) = withUnsafeBytes(of: uuid.uuid) { bytes in
                        (
                            UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)),
                            UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                        )
                    }
                    keys.append((high, low, position))
                }
            case .int:
                for position in buffer.indices {
                    guard case .int(let number) = buffer[position].id else { return false }
                    keys.append((UInt64(bitPattern: number) ^ (1 << 63), 0, position))
                }
            case .string:
                return false
            }
            return true
        }
        guard complete else { return false }
        func precedes(_ a: (high: UInt64, low: UInt64, position: Int), _ b: (high: UInt64, low: UInt64, position: Int))
            -> Bool
        {
            a.high != b.high ? a.high < b.high : a.low < b.low
        }
        if (1..<keys.count).allSatisfy({ !precedes(keys[$0], keys[$0 - 1]) }) { return true }
        keys.sort(by: precedes)
        records = keys.map { records[$0.position] }
        return true
    }
}

/// One full-text search of a predicate: the entity searched, its index and the query.
public struct SearchKey: Sendable, Hashable {
    /// The entity whose index is searched.
    public var entity: String
    /// The index's name.
    public var index: String
    /// What is searched for.
    public var query: SearchQuery

    /// A search of `entity`'s index `index`.
    public init(entity: String, index: String, query: SearchQuery) {
        self.entity = entity
        self.index = index
        self.query = query
    }
}
