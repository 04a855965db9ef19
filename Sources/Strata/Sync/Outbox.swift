import Foundation

/// The durable outbox of a sync-enabled store, kept in the backend's metadata space so it commits
/// in the same transaction as the data it describes (every backend gets it identically).
///
/// Each local save that changed something appends one entry — its mutations, in save order —
/// under `strata.outbox.entry.<first sequence>`, so entries sort in commit order. Acknowledged
/// mutations are removed; an entry is rewritten when only some of its mutations were.
enum Outbox {
    static let entryPrefix = "strata.outbox.entry."
    /// The last sequence number, the pending count and the hybrid clock, in one value: a save
    /// reads and writes it once.
    static let stateKey = "strata.sync.state"
    static let cursorKey = "strata.sync.cursor"
    static let serverVersionPrefix = "strata.sync.sv."
    static let formatVersion: UInt8 = 1

    static func entryKey(_ sequence: UInt64) -> String {
        let digits = String(sequence)
        return entryPrefix + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    // MARK: Appending (inside the save's transaction)

    /// Appends the mutations of a committed save. `items` are the save's changes with the record as
    /// written (`nil` for a delete); link deltas come from the working set's link lists.
    static func append(
        _ items: [(change: HistoryChange, record: Record?)], workingSet: WorkingSet, to writer: any StorageWriteTransaction,
        configuration: SyncConfiguration
    ) throws {
        let schema = writer.schema
        // An update that only touched the inverse side of a many-to-many travels with the owning
        // side's mutation; on its own it would be an empty put.
        let items = items.filter { item in
            guard item.change.kind == .update, let entity = schema.entity(item.change.entity) else { return true }
            return item.change.changedProperties.contains { name in
                entity.isStoredProperty(name) || entity.relationship(name).map { $0.keepsLinkList } ?? false
            }
        }
        guard !items.isEmpty else { return }
        var state = try State.read(writer)
        let timestamp = HybridTimestamp.next(after: state.clock, now: configuration.clock(), node: configuration.clientID)
        let first = state.sequence + 1
        // Written straight from the records: building `SyncMutation` values first would cost as
        // much as the save itself on large saves.
        var bytes = BinaryWriter()
        bytes.bytes.reserveCapacity(items.count * 96)
        bytes.byte(formatVersion)
        bytes.unsigned(UInt64(items.count))
        for (change, record) in items {
            state.sequence += 1
            let key = RecordKey(entity: change.entity, id: change.id)
            // A record inserted here has never been seen from the server.
            let base = change.kind == .insert ? nil : try serverVersion(key, in: writer)
            let entity = schema.entity(change.entity)
            let isPut = record != nil && change.kind != .delete && entity != nil
            writeHeader(
                clientID: configuration.clientID, sequence: state.sequence, kind: isPut ? (change.kind == .insert ? 2 : 1) : 0,
                entity: change.entity, id: change.id, base: base, timestamp: timestamp, &bytes)
            guard isPut, let record, let entity else {
                bytes.unsigned(0)
                bytes.unsigned(0)
                continue
            }
            // `changedProperties` is sorted, as the codec wants.
            let stored = change.changedProperties.filter { entity.isStoredProperty($0) }
            bytes.unsigned(UInt64(stored.count))
            for name in stored {
                bytes.string(name)
                bytes.value(record[name])
            }
            let lists = change.changedProperties.compactMap { name -> RelationshipDescription? in
                guard let relationship = entity.relationship(name), relationship.keepsLinkList else { return nil }
                return relationship
            }
            bytes.unsigned(UInt64(lists.count))
            for relationship in lists {
                let listKey = WorkingSet.LinkKey(entity: change.entity, relationship: relationship.name, owner: change.id)
                let original = workingSet.linkEntries[listKey]?.original ?? []
                let current = try workingSet.links(change.entity, relationship: relationship.name, from: change.id)
                let delta = MembershipDelta(from: original, to: current)
                writeLinks(relationship.name, LinkDelta(added: delta.added, removed: delta.removed, order: current), &bytes)
            }
        }
        try writer.setMetadata(entryKey(first), bytes.bytes)
        state.clock = timestamp
        state.pending += UInt64(items.count)
        try state.write(writer)
    }

    private static func writeHeader(
        clientID: String, sequence: UInt64, kind: UInt8, entity: String, id: RecordID, base: Int64?, timestamp: HybridTimestamp,
        _ writer: inout BinaryWriter
    ) {
        writer.string(clientID)
        writer.unsigned(sequence)
        writer.byte(kind)
        writer.string(entity)
        writer.recordID(id)
        if let base {
            writer.byte(1)
            writer.signed(base)
        } else {
            writer.byte(0)
        }
        writeTimestamp(timestamp, &writer)
    }

    struct State {
        var sequence: UInt64 = 0
        var pending: UInt64 = 0
        var clock: HybridTimestamp?

        static func read(_ transaction: any StorageReadTransaction) throws -> State {
            guard let bytes = try transaction.metadata(stateKey) else { return State() }
            var reader = BinaryReader(bytes)
            var state = State(sequence: try reader.unsigned(), pending: try reader.unsigned())
            if try reader.byte() == 1 { state.clock = try readTimestamp(&reader) }
            return state
        }

        func write(_ writer: any StorageWriteTransaction) throws {
            var bytes = BinaryWriter()
            bytes.unsigned(sequence)
            bytes.unsigned(pending)
            if let clock {
                bytes.byte(1)
                writeTimestamp(clock, &bytes)
            } else {
                bytes.byte(0)
            }
            try writer.setMetadata(stateKey, bytes.bytes)
        }
    }

    // MARK: Reading and acknowledging

    /// Visits outbox entries oldest first, a page at a time, until `body` returns `false`.
    private static func forEachEntry(
        in transaction: any StorageReadTransaction, _ body: (_ key: String, _ mutations: [SyncMutation]) throws -> Bool
    ) throws {
        var after: String?
        while true {
            let page = try transaction.metadata(prefix: entryPrefix, after: after, limit: 64)
            for (key, bytes) in page where try !body(key, decode(bytes)) { return }
            guard page.count == 64, let last = page.last else { return }
            after = last.key
        }
    }

    /// Pending mutations, oldest first (at most `limit`).
    static func mutations(in transaction: any StorageReadTransaction, limit: Int? = nil) throws -> [SyncMutation] {
        var result: [SyncMutation] = []
        try forEachEntry(in: transaction) { _, mutations in
            result += mutations
            return limit.map { result.count < $0 } ?? true
        }
        guard let limit else { return result }
        return Array(result.prefix(limit))
    }

    static func pendingCount(in transaction: any StorageReadTransaction) throws -> Int {
        Int(try State.read(transaction).pending)
    }

    /// Removes mutations from the outbox (acknowledged, rejected, or superseded). Reads entries
    /// oldest first and stops as soon as every ID is found (acknowledgements come in commit order).
    static func remove(_ ids: Set<MutationID>, in writer: any StorageWriteTransaction) throws {
        guard !ids.isEmpty else { return }
        var removed = 0
        var remaining = ids
        try forEachEntry(in: writer) { key, mutations in
            let kept = mutations.filter { !remaining.contains($0.id) }
            if kept.count != mutations.count {
                for mutation in mutations { remaining.remove(mutation.id) }
                removed += mutations.count - kept.count
                try writer.setMetadata(key, kept.isEmpty ? nil : encode(kept))
            }
            return !remaining.isEmpty
        }
        var state = try State.read(writer)
        state.pending -= min(state.pending, UInt64(removed))
        try state.write(writer)
    }

    /// Appends mutations made by the sync engine itself (a record the client's policy kept, sent whole).
    static func appendRaw(_ build: (UInt64) -> [SyncMutation], in writer: any StorageWriteTransaction) throws -> [SyncMutation] {
        var state = try State.read(writer)
        let mutations = build(state.sequence + 1)
        guard !mutations.isEmpty else { return [] }
        try writer.setMetadata(entryKey(state.sequence + 1), encode(mutations))
        state.sequence += UInt64(mutations.count)
        state.pending += UInt64(mutations.count)
        if let last = mutations.map(\.timestamp).max(), state.clock.map({ $0 < last }) ?? true { state.clock = last }
        try state.write(writer)
        return mutations
    }

    // MARK: Client state

    /// A record's key as a metadata key suffix: entity, separator, ID kind, ID (so `1` the
    /// string and `1` the integer never meet).
    static func recordSuffix(_ key: RecordKey) -> String {
        let kind = switch key.id { case .uuid: "u"; case .string: "s"; case .int: "i" }
        return key.entity + "\u{1F}" + kind + key.id.description
    }

    static func serverVersionKey(_ key: RecordKey) -> String { serverVersionPrefix + recordSuffix(key) }

    static func serverVersion(_ key: RecordKey, in transaction: any StorageReadTransaction) throws -> Int64? {
        guard let bytes = try transaction.metadata(serverVersionKey(key)) else { return nil }
        var reader = BinaryReader(bytes)
        return try reader.signed()
    }

    static func setServerVersion(_ key: RecordKey, _ version: Int64?, in writer: any StorageWriteTransaction) throws {
        var bytes = BinaryWriter()
        if let version { bytes.signed(version) }
        try writer.setMetadata(serverVersionKey(key), version == nil ? nil : bytes.bytes)
    }

    static func cursor(in transaction: any StorageReadTransaction) throws -> SyncCursor? {
        guard let bytes = try transaction.metadata(cursorKey) else { return nil }
        var reader = BinaryReader(bytes)
        return SyncCursor(try reader.signed())
    }

    static func setCursor(_ cursor: SyncCursor?, in writer: any StorageWriteTransaction) throws {
        guard let cursor else { return }
        var bytes = BinaryWriter()
        bytes.signed(cursor.value)
        try writer.setMetadata(cursorKey, bytes.bytes)
    }

    static func clock(in transaction: any StorageReadTransaction) throws -> HybridTimestamp? {
        try State.read(transaction).clock
    }

    /// Moves the local clock past timestamps seen from elsewhere (the receive rule of a hybrid clock).
    static func observe(_ timestamps: some Sequence<HybridTimestamp>, in writer: any StorageWriteTransaction) throws {
        guard let latest = timestamps.max() else { return }
        var state = try State.read(writer)
        if let local = state.clock, local >= latest { return }
        state.clock = latest
        try state.write(writer)
    }

    // MARK: Codec (compact binary: the outbox is written on every save)

    static func encode(_ mutations: [SyncMutation]) -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(formatVersion)
        writer.unsigned(UInt64(mutations.count))
        for mutation in mutations {
            writeHeader(
                clientID: mutation.id.clientID, sequence: mutation.id.sequence, kind: mutation.kind == .put ? (mutation.isInsert ? 2 : 1) : 0,
                entity: mutation.entity, id: mutation.recordID, base: mutation.baseServerVersion, timestamp: mutation.timestamp, &writer)
            writer.unsigned(UInt64(mutation.values.count))
            for (name, value) in mutation.values.sorted(by: { $0.key < $1.key }) {
                writer.string(name)
                writer.value(value)
            }
            writer.unsigned(UInt64(mutation.links.count))
            for (name, delta) in mutation.links.sorted(by: { $0.key < $1.key }) { writeLinks(name, delta, &writer) }
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> [SyncMutation] {
        var reader = BinaryReader(bytes)
        guard try reader.byte() == formatVersion else { throw StrataError(.incompatibleStore, "outbox entry has an unknown format version") }
        let count = try reader.count()
        var mutations: [SyncMutation] = []
        mutations.reserveCapacity(count)
        for _ in 0..<count {
            let id = MutationID(clientID: try reader.string(), sequence: try reader.unsigned())
            let kindByte = try reader.byte()
            guard kindByte <= 2 else { throw reader.corrupt("unknown mutation kind") }
            let entity = try reader.string()
            let recordID = try reader.recordID()
            let base: Int64? = try reader.byte() == 1 ? try reader.signed() : nil
            let timestamp = try readTimestamp(&reader)
            var values: [String: Value] = [:]
            for _ in 0..<(try reader.count()) { values[try reader.string()] = try reader.value() }
            var links: [String: LinkDelta] = [:]
            for _ in 0..<(try reader.count()) {
                let name = try reader.string()
                var lists: [[RecordID]] = []
                for _ in 0..<3 { lists.append(try (0..<reader.count()).map { _ in try reader.recordID() }) }
                links[name] = LinkDelta(added: lists[0], removed: lists[1], order: lists[2])
            }
            mutations.append(SyncMutation(
                id: id, kind: kindByte == 0 ? .delete : .put, entity: entity, recordID: recordID, isInsert: kindByte == 2,
                values: values, links: links, baseServerVersion: base, timestamp: timestamp))
        }
        return mutations
    }

    private static func writeLinks(_ name: String, _ delta: LinkDelta, _ writer: inout BinaryWriter) {
        writer.string(name)
        for list in [delta.added, delta.removed, delta.order] {
            writer.unsigned(UInt64(list.count))
            for id in list { writer.recordID(id) }
        }
    }

    static func writeTimestamp(_ timestamp: HybridTimestamp, _ writer: inout BinaryWriter) {
        writer.signed(timestamp.millis)
        writer.unsigned(UInt64(timestamp.counter))
        writer.string(timestamp.node)
    }

    static func readTimestamp(_ reader: inout BinaryReader) throws -> HybridTimestamp {
        let millis = try reader.signed()
        let counter = UInt32(truncatingIfNeeded: try reader.unsigned())
        return HybridTimestamp(millis: millis, counter: counter, node: try reader.string())
    }
}
