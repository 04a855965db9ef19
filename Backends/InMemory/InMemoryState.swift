import Strata

/// The whole content of an in-memory store. A value: readers take a copy-on-write snapshot.
struct InMemoryState: Sendable {
    struct Table: Sendable {
        var records: [RecordID: Record] = [:]
        /// Equality indexes over indexed, unique and reference properties: value → IDs, kept in ID
        /// order so a page of an equality, or a referrer lookup, needs no sort.
        var indexes: [String: [Value: SortedChunks<RecordID>]] = [:]
        /// For indexed attributes, their distinct non-null values in the contract's order: ranges
        /// and pages sorted by the attribute seek here instead of scanning the table.
        var orderedKeys: [String: SortedChunks<IndexKey>] = [:]
    }

    /// A value in an index's order (``Value/sortOrder(_:_:)``), which is the contract's.
    struct IndexKey: Comparable, Sendable {
        var value: Value
        static func < (lhs: IndexKey, rhs: IndexKey) -> Bool { Value.sortOrder(lhs.value, rhs.value) == .ascending }
        static func == (lhs: IndexKey, rhs: IndexKey) -> Bool { Value.sortOrder(lhs.value, rhs.value) == .same }
    }

    struct LinkKey: Hashable, Sendable {
        var entity: String
        var relationship: String
        var id: RecordID
    }

    var tables: [String: Table] = [:]
    var links: [LinkKey: [RecordID]] = [:]
    /// Reverse of `links`: (entity, relationship, target) → owners.
    var linkOwners: [LinkKey: Set<RecordID>] = [:]
    var metadata: [String: [UInt8]] = [:]

    init() {}

    init(schema: Schema) {
        for entity in schema.entities {
            var table = Table()
            for property in entity.indexedProperties {
                table.indexes[property] = [:]
                if entity.attribute(property) != nil { table.orderedKeys[property] = SortedChunks() }
            }
            tables[entity.name] = table
        }
    }

    /// The key an index stores a value under: numbers in `double` attributes are normalised so
    /// `.int(1)` and `.double(1)` find each other.
    static func indexKey(_ value: Value) -> Value {
        if case .int(let number) = value { return .double(Double(number)) }
        return value
    }

    /// Inserts or replaces a record, keeping the indexes; returns the previous version.
    @discardableResult
    mutating func put(_ record: Record) -> Record? {
        let previous = tables[record.entity]?.records.updateValue(record, forKey: record.id)
        if let previous { unindex(previous) }
        index(record)
        return previous
    }

    @discardableResult
    mutating func remove(_ entity: String, _ id: RecordID) -> Record? {
        guard let previous = tables[entity]?.records.removeValue(forKey: id) else { return nil }
        unindex(previous)
        return previous
    }

    /// Removes many records of one entity; returns those that existed. Index entries are removed
    /// per key: a key losing all its IDs at once (the children of a deleted parent, in a cascade)
    /// is dropped whole instead of one ID at a time.
    mutating func remove(_ entity: String, ids: [RecordID]) -> [Record] {
        var removed: [Record] = []
        removed.reserveCapacity(ids.count)
        for id in ids {
            if let previous = tables[entity]?.records.removeValue(forKey: id) { removed.append(previous) }
        }
        guard let properties = tables[entity].map({ Array($0.indexes.keys) }), !removed.isEmpty else { return removed }
        for property in properties {
            var byKey: [Value: [RecordID]] = [:]
            for record in removed {
                let key = Self.indexKey(record[property])
                if !key.isNull { byKey[key, default: []].append(record.id) }
            }
            for (key, keyIDs) in byKey {
                guard let count = tables[entity]?.indexes[property]?[key]?.count else { continue }
                if count > keyIDs.count {
                    for id in keyIDs { tables[entity]?.indexes[property]?[key]?.remove(id) }
                    continue
                }
                tables[entity]?.indexes[property]?[key] = nil
                tables[entity]?.orderedKeys[property]?.remove(IndexKey(value: key))
            }
        }
        return removed
    }

    // The property names are copied out first: iterating the `keys` view would keep the index
    // storage shared while it is mutated, and every insert would copy the whole index.
    private mutating func index(_ record: Record) {
        guard let properties = tables[record.entity].map({ Array($0.indexes.keys) }) else { return }
        for property in properties {
            let key = Self.indexKey(record[property])
            if key.isNull { continue }
            let isNewKey = tables[record.entity]?.indexes[property]?[key] == nil
            tables[record.entity]?.indexes[property]?[key, default: SortedChunks()].insert(record.id)
            if isNewKey { tables[record.entity]?.orderedKeys[property]?.insert(IndexKey(value: key)) }
        }
    }

    private mutating func unindex(_ record: Record) {
        guard let properties = tables[record.entity].map({ Array($0.indexes.keys) }) else { return }
        for property in properties {
            let key = Self.indexKey(record[property])
            if key.isNull { continue }
            tables[record.entity]?.indexes[property]?[key]?.remove(record.id)
            if tables[record.entity]?.indexes[property]?[key]?.isEmpty == true {
                tables[record.entity]?.indexes[property]?[key] = nil
                tables[record.entity]?.orderedKeys[property]?.remove(IndexKey(value: key))
            }
        }
    }

    /// Replaces a link list; returns the previous one.
    @discardableResult
    mutating func setLinks(_ key: LinkKey, _ targets: [RecordID]) -> [RecordID] {
        let previous = links[key] ?? []
        for target in previous {
            let reverse = LinkKey(entity: key.entity, relationship: key.relationship, id: target)
            linkOwners[reverse]?.remove(key.id)
            if linkOwners[reverse]?.isEmpty == true { linkOwners[reverse] = nil }
        }
        links[key] = targets.isEmpty ? nil : targets
        for target in targets {
            linkOwners[LinkKey(entity: key.entity, relationship: key.relationship, id: target), default: []].insert(key.id)
        }
        return previous
    }
}
