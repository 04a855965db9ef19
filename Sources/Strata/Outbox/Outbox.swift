import Foundation

/// The durable outbox of a sync-enabled store, kept in the backend's metadata space so it commits
/// in the same transaction as the data it describes (every backend gets it identically).
///
/// Each local save that changed something appends one entry — its mutations, in save order —
/// under `strata.outbox.entry.<first sequence>`, so entries sort in commit order. Acknowledged
/// mutations are removed; an entry is rewritten when only some of its mutations were.
package enum Outbox {
    static let entryPrefix = MetadataKeys.outboxEntryPrefix
    /// The last sequence number, the pending count and the hybrid clock, in one value: a save
    /// reads and writes it once.
    static let stateKey = MetadataKeys.syncState
    package static let cursorKey = MetadataKeys.syncCursor
    static let serverVersionPrefix = MetadataKeys.serverVersionPrefix
    static let formatVersion: UInt8 = 1

    static func entryKey(_ sequence: UInt64) -> String {
        let digits = String(sequence)
        return entryPrefix + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    // MARK: Appending (inside the save's transaction)

    /// The outbox as a commit participant: a sync-enabled store's local saves append their
    /// mutations here, in the save's transaction.
    struct Participant: CommitParticipant {
        let configuration: SyncConfiguration

        func participate(in commit: CommitInProgress, transaction: any StorageWriteTransaction) throws {
            try Outbox.append(commit, to: transaction, configuration: configuration)
        }
    }

    /// Appends the mutations of a committed save: its changes with the records as written (`nil`
    /// for a delete); link deltas come from the working set's link lists.
    static func append(
        _ commit: CommitInProgress, to writer: any StorageWriteTransaction, configuration: SyncConfiguration
    ) throws {
        let schema = writer.schema
        let workingSet = commit.workingSet
        // An update that only touched the inverse side of a many-to-many travels with the owning
        // side's mutation; on its own it would be an empty put.
        let items = Array(
            zip(commit.changes, commit.records).lazy.map { (change: $0, record: $1) }.filter { item in
                // A local-only entity never syncs.
                if configuration.localOnly.contains(item.change.entity) { return false }
                guard item.change.kind == .update, let entity = schema.entity(item.change.entity) else { return true }
                return item.change.changedProperties.contains { name in
                    entity.isStoredProperty(name)
                        || entity.relationship(name).map {
                            $0.keepsLinkList && !configuration.localOnly.contains($0.destination)
                        } ?? false
                }
            })
        guard !items.isEmpty else { return }
        guard !configuration.clientID.isEmpty else { throw SyncConfiguration.unresolved("a save's mutations") }
        var state = try State.read(writer)
        let timestamp = OutboxTimestamp.next(
            after: state.clock, now: configuration.clock(), node: configuration.clientID)
        let first = state.sequence + 1
        // Written straight from the records: building `OutboxMutation` values first would cost as
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
                clientID: configuration.clientID, sequence: state.sequence,
                kind: isPut ? (change.kind == .insert ? 2 : 1) : 0,
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
                guard let relationship = entity.relationship(name), relationship.keepsLinkList,
                    !configuration.localOnly.contains(relationship.destination)
                else { return nil }
                return relationship
            }
            bytes.unsigned(UInt64(lists.count))
            for relationship in lists {
                let listKey = LinkKey(entity: change.entity, relationship: relationship.name, owner: change.id)
                let original = workingSet.linkEntries[listKey]?.original ?? []
                let current = try workingSet.links(change.entity, relationship: relationship.name, from: change.id)
                let delta = MembershipDelta(from: original, to: current)
                writeLinks(
                    relationship.name, OutboxLinkDelta(added: delta.added, removed: delta.removed, order: current),
                    &bytes)
            }
        }
        try writer.setMetadata(entryKey(first), bytes.bytes)
        state.clock = timestamp
        state.pending += UInt64(items.count)
        try state.write(writer)
    }

    static func writeHeader(
        clientID: String, sequence: UInt64, kind: UInt8, entity: String, id: RecordID, base: Int64?,
        timestamp: OutboxTimestamp,
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
        var clock: OutboxTimestamp?

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
        in transaction: any StorageReadTransaction,
        _ body: (_ key: String, _ mutations: [OutboxMutation]) throws -> Bool
    ) throws {
        try forEachStoredEntry(in: transaction) { key, bytes in try body(key, decode(bytes)) }
    }

    /// Visits outbox entries oldest first as stored (undecoded), until `body` returns `false`.
    private static func forEachStoredEntry(
        in transaction: any StorageReadTransaction, _ body: (_ key: String, _ bytes: [UInt8]) throws -> Bool
    ) throws {
        var after: String?
        while true {
            let page = try transaction.metadata(prefix: entryPrefix, after: after, limit: 64)
            for (key, bytes) in page where try !body(key, bytes) { return }
            guard page.count == 64, let last = page.last else { return }
            after = last.key
        }
    }

    /// An outbox entry as a reader saw it: its bytes and the IDs they hold. Handed back to
    /// ``remove(_:known:in:)``, it spares decoding an entry whose bytes have not changed since.
    package struct SeenEntry: Sendable {
        let bytes: [UInt8]
        let ids: [OutboxMutationID]
    }

    /// Pending mutations, oldest first (at most `limit`).
    package static func mutations(in transaction: any StorageReadTransaction, limit: Int? = nil) throws
        -> [OutboxMutation]
    {
        var seen: [String: SeenEntry] = [:]
        return try mutations(in: transaction, limit: limit, seen: &seen)
    }

    /// Pending mutations, oldest first (at most `limit`), and the entries they were read from.
    package static func mutations(
        in transaction: any StorageReadTransaction, limit: Int?, seen: inout [String: SeenEntry]
    ) throws -> [OutboxMutation] {
        var result: [OutboxMutation] = []
        try forEachStoredEntry(in: transaction) { key, bytes in
            let mutations = try decode(bytes)
            seen[key] = SeenEntry(bytes: bytes, ids: mutations.map(\.id))
            result += mutations
            return limit.map { result.count < $0 } ?? true
        }
        guard let limit else { return result }
        return Array(result.prefix(limit))
    }

    package static func pendingCount(in transaction: any StorageReadTransaction) throws -> Int {
        Int(try State.read(transaction).pending)
    }

    /// Removes mutations from the outbox (acknowledged, rejected, or superseded). Reads entries
    /// oldest first and stops as soon as every ID is found (acknowledgements come in commit order).
    /// `known`: entries as a reader saw them; one whose bytes are unchanged is not decoded again
    /// unless only part of it goes.
    package static func remove(
        _ ids: Set<OutboxMutationID>, known: [String: SeenEntry] = [:], in writer: any StorageWriteTransaction
    ) throws {
        guard !ids.isEmpty else { return }
        var removed = 0
        var remaining = ids
        try forEachStoredEntry(in: writer) { key, bytes in
            var decoded: [OutboxMutation]?
            let held: [OutboxMutationID]
            if let seen = known[key], seen.bytes == bytes {
                held = seen.ids
            } else {
                decoded = try decode(bytes)
                held = decoded?.map(\.id) ?? []
            }
            let going = held.filter { remaining.contains($0) }.count
            if going > 0 {
                for id in held { remaining.remove(id) }
                removed += going
                if going == held.count {
                    try writer.setMetadata(key, nil)
                } else {
                    let kept = try (decoded ?? decode(bytes)).filter { !ids.contains($0.id) }
                    try writer.setMetadata(key, encode(kept))
                }
            }
            return !remaining.isEmpty
        }
        var state = try State.read(writer)
        state.pending -= min(state.pending, UInt64(removed))
        try state.write(writer)
    }

    /// Appends mutations made by the sync engine itself (a record the client's policy kept, sent whole).
    package static func appendRaw(_ build: (UInt64) -> [OutboxMutation], in writer: any StorageWriteTransaction) throws
        -> [OutboxMutation]
    {
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
}
