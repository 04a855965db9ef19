import StrataStorage

/// Reads shared by the read snapshot and the write transaction.
protocol InMemoryReading: StorageReadTransaction {
    var state: InMemoryState { get }
    var capabilities: FetchCapabilities { get }
}

extension InMemoryReading {
    func record(_ entity: String, id: RecordID) throws -> Record? {
        try table(entity).records[id]
    }

    func table(_ entity: String) throws -> InMemoryState.Table {
        guard let table = state.tables[entity] else {
            throw StrataError(.unknownEntity, entity: entity, "entity \(entity) is not in the schema")
        }
        return table
    }

    func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        let table = try table(entity)
        var found: [RecordID: Record] = [:]
        found.reserveCapacity(ids.count)
        for id in ids { if let record = table.records[id] { found[id] = record } }
        return found
    }

    func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        let table = try table(entity)
        return Set(ids.lazy.filter { table.records[$0] != nil })
    }

    /// No record copied out: each version read in place.
    func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        let table = try table(entity)
        var found: [RecordID: Int64] = [:]
        found.reserveCapacity(ids.count)
        for id in ids { if let version = table.records[id]?.version { found[id] = version } }
        return found
    }

    func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]] {
        guard let index = try table(entity).index(property) else {
            return try referrersOneTargetAtATime(entity, property: property, toEach: targets)
        }
        var found: [RecordID: [RecordID]] = [:]
        for target in targets where found[target] == nil {
            if let ids = index[InMemoryState.indexKey(target.value)] { found[target] = ids.elements }
        }
        return found
    }

    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        let table = try table(entity)
        if let index = table.index(property) {
            return index[InMemoryState.indexKey(target.value)]?.elements ?? []
        }
        return table.records.values.filter { $0[property] == target.value }.map(\.id).sorted()
    }

    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        state.links[InMemoryState.LinkKey(entity: entity, relationship: relationship, id: owner)] ?? []
    }

    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        (state.linkOwners[InMemoryState.LinkKey(entity: entity, relationship: relationship, id: target)] ?? []).sorted()
    }

    func metadata(_ key: String) throws -> [UInt8]? {
        state.metadata[key]
    }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        state.metadata.scan(prefix: prefix, after: after, limit: limit)
    }
}

final class InMemoryReadTransaction: InMemoryReading {
    let schema: Schema
    let state: InMemoryState
    let capabilities: FetchCapabilities

    init(schema: Schema, state: InMemoryState, capabilities: FetchCapabilities) {
        self.schema = schema
        self.state = state
        self.capabilities = capabilities
    }
}

/// Mutates the store's state in place and logs how to undo each change, so a throwing closure
/// rolls back without the cost of copying the state up front.
final class InMemoryWriteTransaction: InMemoryReading, StorageWriteTransaction {
    private enum Undo {
        case record(String, RecordID, Record?)
        /// Records a set delete removed, put back together.
        case removed(String, [Record])
        case links(InMemoryState.LinkKey, [RecordID])
        case metadata(String, [UInt8]?)
    }

    let schema: Schema
    private(set) var state: InMemoryState
    let capabilities: FetchCapabilities
    private var undoLog: [Undo] = []

    init(schema: Schema, state: consuming InMemoryState, capabilities: FetchCapabilities) {
        self.schema = schema
        self.state = state
        self.capabilities = capabilities
    }

    func put(_ record: Record) throws {
        guard state.tables[record.entity] != nil else {
            throw StrataError(.unknownEntity, entity: record.entity, "entity \(record.entity) is not in the schema")
        }
        undoLog.append(.record(record.entity, record.id, state.put(record)))
    }

    func put(contentsOf records: [Record]) throws {
        undoLog.reserveCapacity(undoLog.count + records.count)
        var start = records.startIndex
        while start < records.endIndex {
            let entity = records[start].entity
            var end = start + 1
            while end < records.endIndex, records[end].entity == entity { end += 1 }
            let known = state.put(records[start..<end], of: entity) { record, previous in
                undoLog.append(.record(entity, record.id, previous))
            }
            guard known else {
                throw StrataError(.unknownEntity, entity: entity, "entity \(entity) is not in the schema")
            }
            start = end
        }
    }

    func delete(_ entity: String, id: RecordID) throws { try delete(entity, ids: [id]) }

    /// A set at once: see ``InMemoryState/remove(_:ids:)``.
    func delete(_ entity: String, ids: [RecordID]) throws {
        let removed = state.remove(entity, ids: ids)
        if !removed.isEmpty { undoLog.append(.removed(entity, removed)) }
        let linked = schema.entity(entity)?.relationships.filter(\.keepsLinkList) ?? []
        for previous in removed where !linked.isEmpty {
            for relationship in linked {
                try setLinks(entity, relationship: relationship.name, from: previous.id, to: [])
            }
        }
    }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        let key = InMemoryState.LinkKey(entity: entity, relationship: relationship, id: owner)
        undoLog.append(.links(key, state.setLinks(key, targets)))
    }

    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        undoLog.append(.metadata(key, state.metadata[key]))
        state.metadata[key] = value
    }

    /// Undoes every change, newest first.
    func rollback() {
        for entry in undoLog.reversed() {
            switch entry {
            case .record(_, _, let previous?): state.put(previous)
            case .record(let entity, let id, nil): state.remove(entity, id)
            case .removed(let entity, let records):
                _ = state.put(records[...], of: entity) { _, _ in }
            case .links(let key, let previous): state.setLinks(key, previous)
            case .metadata(let key, let previous): state.metadata[key] = previous
            }
        }
        undoLog.removeAll()
    }

    /// Hands the state back to the backend (the transaction is spent afterwards).
    func takeState() -> InMemoryState {
        let taken = state
        state = InMemoryState()
        return taken
    }
}
