import StrataStorage

/// The whole content of an in-memory store. A value: readers take a copy-on-write snapshot.
struct InMemoryState: Sendable {
    struct Table: Sendable {
        var records: [RecordID: Record] = [:]
        /// Every ID in the contract's ID order: a keyset page (`id > last`, in ID order) is a seek
        /// and a walk of one page, not a sort of the whole table.
        var ids = SortedChunks<RecordID>()
        /// The entity's record layout: the engine's records are in it, so indexed values are
        /// read by slot.
        var layout: RecordLayout
        /// One per indexed, unique or reference property.
        var propertyIndexes: [PropertyIndex] = []
        var indexPosition: [String: Int] = [:]

        /// The equality index over `property` (value → IDs in ID order), if it has one.
        func index(_ property: String) -> [Value: SortedChunks<RecordID>]? {
            indexPosition[property].map { propertyIndexes[$0].entries }
        }

        /// The ordered distinct values of an indexed attribute, if it has them.
        func orderedKeys(_ property: String) -> SortedChunks<IndexKey>? {
            indexPosition[property].flatMap { propertyIndexes[$0].orderedKeys }
        }

        /// The value `record` holds for the index at `position`, as the index stores it.
        func key(_ record: Record, _ position: Int) -> Value {
            let index = propertyIndexes[position]
            return InMemoryState.indexKey(record.value(at: index.slot, of: layout, named: index.name))
        }

        mutating func add(_ record: Record) {
            for position in propertyIndexes.indices {
                let key = key(record, position)
                if key.isNull { continue }
                let isNewKey = propertyIndexes[position].entries[key] == nil
                propertyIndexes[position].entries[key, default: SortedChunks()].insert(record.id)
                if isNewKey { propertyIndexes[position].orderedKeys?.insert(IndexKey(value: key)) }
            }
        }

        /// `records`' IDs by their key in the index at `position` (null keys left out). Runs of one
        /// key (the children of one parent) are gathered without a hash each.
        func idsByKey(_ records: [Record], _ position: Int) -> [Value: [RecordID]] {
            var byKey: [Value: [RecordID]] = [:]
            var run: (key: Value, ids: [RecordID])?
            for record in records {
                let key = key(record, position)
                if key.isNull { continue }
                if run?.key == key {
                    run?.ids.append(record.id)
                    continue
                }
                if let run { byKey[run.key, default: []].append(contentsOf: run.ids) }
                run = (key, [record.id])
            }
            if let run { byKey[run.key, default: []].append(contentsOf: run.ids) }
            return byKey
        }

        /// Adds many new records' entries: each key's IDs gathered (runs of one key without a hash
        /// each) and inserted at once.
        mutating func add(contentsOf added: [Record]) {
            guard added.count > 1 else {
                for record in added { add(record) }
                return
            }
            for position in propertyIndexes.indices {
                for (key, ids) in idsByKey(added, position) {
                    let isNewKey = propertyIndexes[position].entries[key] == nil
                    propertyIndexes[position].entries[key, default: SortedChunks()].insert(contentsOf: ids)
                    if isNewKey { propertyIndexes[position].orderedKeys?.insert(IndexKey(value: key)) }
                }
            }
        }

        /// Drops many records' entries per key: a key losing all its IDs at once (the children
        /// of a deleted parent, in a cascade) goes whole instead of one ID at a time.
        mutating func drop(_ removed: [Record]) {
            for position in propertyIndexes.indices {
                for (key, keyIDs) in idsByKey(removed, position) { remove(keyIDs, under: key, at: position) }
            }
        }

        mutating func drop(_ record: Record) {
            for position in propertyIndexes.indices {
                let key = key(record, position)
                if !key.isNull { remove([record.id], under: key, at: position) }
            }
        }

        /// Removes `ids` from the entry of `key` in the index at `position`; the key goes whole
        /// when they are all it holds.
        private mutating func remove(_ ids: [RecordID], under key: Value, at position: Int) {
            guard let count = propertyIndexes[position].entries[key]?.count else { return }
            if count > ids.count {
                propertyIndexes[position].entries[key]?.remove(contentsOf: ids)
                return
            }
            propertyIndexes[position].entries[key] = nil
            propertyIndexes[position].orderedKeys?.remove(IndexKey(value: key))
        }
    }

    /// An index over one property: equality (value → IDs, kept in ID order so a page of an
    /// equality, or a referrer lookup, needs no sort) and, for attributes, the distinct non-null
    /// values in the contract's order, so ranges and sorted pages seek instead of scanning.
    struct PropertyIndex: Sendable {
        let name: String
        let slot: Int
        var entries: [Value: SortedChunks<RecordID>] = [:]
        var orderedKeys: SortedChunks<IndexKey>?
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
    var metadata = MetadataTable()

    init() {}

    init(schema: Schema) {
        for entity in schema.entities {
            var table = Table(layout: entity.layout)
            for property in entity.indexedProperties.sorted() {
                guard let slot = entity.layout.slot(property) else { continue }
                table.indexPosition[property] = table.propertyIndexes.count
                table.propertyIndexes.append(
                    PropertyIndex(
                        name: property, slot: slot,
                        orderedKeys: entity.attribute(property) != nil ? SortedChunks() : nil))
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
        var previous: Record?
        _ = put([record][...], of: record.entity) { _, replaced in previous = replaced }
        return previous
    }

    /// Inserts or replaces a run of records of one entity with one table lookup, its dictionary
    /// grown once; `replaced` gets each record's previous version. `false` for an unknown entity.
    mutating func put(
        _ records: ArraySlice<Record>, of entity: String, replaced: (Record, Record?) -> Void
    ) -> Bool {
        guard var table = tables.removeValue(forKey: entity) else { return false }
        defer { tables[entity] = table }
        table.records.reserveCapacity(table.records.count + records.count)
        // New records' ID and index entries are added together; a replaced record's at once, after
        // the new ones before it (it may replace one of them).
        var fresh: [Record] = []
        func addFresh() {
            guard !fresh.isEmpty else { return }
            table.ids.insert(contentsOf: fresh.map(\.id))
            table.add(contentsOf: fresh)
            fresh.removeAll(keepingCapacity: true)
        }
        for record in records {
            let previous = table.records.updateValue(record, forKey: record.id)
            if let previous {
                addFresh()
                table.drop(previous)
                table.add(record)
            } else {
                fresh.append(record)
            }
            replaced(record, previous)
        }
        addFresh()
        return true
    }

    @discardableResult
    mutating func remove(_ entity: String, _ id: RecordID) -> Record? {
        guard let previous = tables[entity]?.records.removeValue(forKey: id) else { return nil }
        tables[entity]?.drop(previous)
        tables[entity]?.ids.remove(id)
        return previous
    }

    /// Removes many records of one entity; returns those that existed. Index entries are removed
    /// per key: a key losing all its IDs at once (the children of a deleted parent, in a cascade)
    /// is dropped whole instead of one ID at a time.
    mutating func remove(_ entity: String, ids: [RecordID]) -> [Record] {
        guard var table = tables.removeValue(forKey: entity) else { return [] }
        defer { tables[entity] = table }
        var removed: [Record] = []
        removed.reserveCapacity(ids.count)
        for id in ids {
            if let previous = table.records.removeValue(forKey: id) { removed.append(previous) }
        }
        guard !removed.isEmpty else { return removed }
        table.ids.remove(contentsOf: removed.count == ids.count ? ids : removed.map(\.id))
        table.drop(removed)
        return removed
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
            linkOwners[LinkKey(entity: key.entity, relationship: key.relationship, id: target), default: []].insert(
                key.id)
        }
        return previous
    }
}
