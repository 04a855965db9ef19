import Strata

/// The wire's mutation types and the outbox's: the same fields, two types, because the outbox is
/// the engine's storage (written by every local save, rewritten by migrations) and these are the
/// messages this module sends.
extension MutationID {
    package init(_ id: OutboxMutationID) { self.init(clientID: id.clientID, sequence: id.sequence) }
    package var outbox: OutboxMutationID { OutboxMutationID(clientID: clientID, sequence: sequence) }
}

extension LinkDelta {
    package init(_ delta: OutboxLinkDelta) { self.init(added: delta.added, removed: delta.removed, order: delta.order) }
    package var outbox: OutboxLinkDelta { OutboxLinkDelta(added: added, removed: removed, order: order) }
}

extension HybridTimestamp {
    package init(_ timestamp: OutboxTimestamp) {
        self.init(millis: timestamp.millis, counter: timestamp.counter, node: timestamp.node)
    }
    package var outbox: OutboxTimestamp { OutboxTimestamp(millis: millis, counter: counter, node: node) }
}

extension SyncMutation {
    package init(_ mutation: OutboxMutation) {
        self.init(
            id: MutationID(mutation.id), kind: mutation.kind == .put ? .put : .delete, entity: mutation.entity,
            recordID: mutation.recordID, isInsert: mutation.isInsert, values: mutation.values,
            links: mutation.links.mapValues(LinkDelta.init), baseServerVersion: mutation.baseServerVersion,
            timestamp: HybridTimestamp(mutation.timestamp))
    }

    package var outbox: OutboxMutation {
        OutboxMutation(
            id: id.outbox, kind: kind == .put ? .put : .delete, entity: entity, recordID: recordID, isInsert: isInsert,
            values: values, links: links.mapValues(\.outbox), baseServerVersion: baseServerVersion,
            timestamp: timestamp.outbox)
    }
}

/// The outbox as the sync client reads and writes it: in the wire's types.
extension Outbox {
    /// The waiting mutations, oldest first.
    package static func wireMutations(in transaction: any StorageReadTransaction, limit: Int? = nil) throws
        -> [SyncMutation]
    {
        try mutations(in: transaction, limit: limit).map(SyncMutation.init)
    }

    /// Pending mutations in wire form, and the entries they were read from (for ``remove(_:known:in:)``).
    package static func wireMutations(
        in transaction: any StorageReadTransaction, limit: Int?, seen: inout [String: SeenEntry]
    ) throws -> [SyncMutation] {
        try mutations(in: transaction, limit: limit, seen: &seen).map(SyncMutation.init)
    }

    package static func remove(
        _ ids: Set<MutationID>, known: [String: SeenEntry] = [:], in writer: any StorageWriteTransaction
    ) throws {
        try remove(Set(ids.map(\.outbox)), known: known, in: writer)
    }

    package static func hybridClock(in transaction: any StorageReadTransaction) throws -> HybridTimestamp? {
        try clock(in: transaction).map(HybridTimestamp.init)
    }

    package static func observe(_ timestamps: [HybridTimestamp], in writer: any StorageWriteTransaction) throws {
        try observe(timestamps.map(\.outbox), in: writer)
    }

    package static func appendWire(_ build: (UInt64) -> [SyncMutation], in writer: any StorageWriteTransaction) throws
        -> [SyncMutation]
    {
        try appendRaw({ first in build(first).map(\.outbox) }, in: writer).map(SyncMutation.init)
    }
}
