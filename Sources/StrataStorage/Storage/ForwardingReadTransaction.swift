/// A transaction wrapper that passes every read through to another transaction, so a wrapper
/// (one that records writes for a journal, injects faults, or observes) implements only what it
/// changes. Conform, name the transaction reads go to, and every read requirement of
/// ``StorageReadTransaction`` is provided.
///
/// ```swift
/// final class Counting: ForwardingReadTransaction, StorageWriteTransaction {
///     let inner: any StorageWriteTransaction
///     var readsGoTo: any StorageReadTransaction { inner }
///     func put(_ record: Record) throws { puts += 1; try inner.put(record) }
///     …
/// }
/// ```
public protocol ForwardingReadTransaction: StorageReadTransaction {
    /// The transaction every read is passed to.
    var readsGoTo: any StorageReadTransaction { get }
}

extension ForwardingReadTransaction {
    public var schema: Schema { readsGoTo.schema }
    public func record(_ entity: String, id: RecordID) throws -> Record? { try readsGoTo.record(entity, id: id) }
    public func fetch(_ plan: FetchPlan) throws -> [Record] { try readsGoTo.fetch(plan) }
    public func count(_ plan: FetchPlan) throws -> Int { try readsGoTo.count(plan) }
    public func aggregate(_ plan: AggregatePlan) throws -> [AggregateRow] { try readsGoTo.aggregate(plan) }
    public func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        try readsGoTo.referrers(entity, property: property, to: target)
    }
    public func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        try readsGoTo.records(entity, ids: ids)
    }
    public func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        try readsGoTo.existingIDs(entity, among: ids)
    }
    public func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        try readsGoTo.versions(entity, ids: ids)
    }
    public func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID:
        [RecordID]]
    {
        try readsGoTo.referrers(entity, property: property, toEach: targets)
    }
    public func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        try readsGoTo.links(entity, relationship: relationship, from: owner)
    }
    public func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        try readsGoTo.linkOwners(entity, relationship: relationship, to: target)
    }
    public func links(_ entity: String, relationship: String, fromEach owners: [RecordID]) throws -> [RecordID:
        [RecordID]]
    {
        try readsGoTo.links(entity, relationship: relationship, fromEach: owners)
    }
    public func linkOwners(_ entity: String, relationship: String, toEach targets: [RecordID]) throws -> [RecordID:
        [RecordID]]
    {
        try readsGoTo.linkOwners(entity, relationship: relationship, toEach: targets)
    }
    public func metadata(_ key: String) throws -> [UInt8]? { try readsGoTo.metadata(key) }
    public func metadata(keys: [String]) throws -> [String: [UInt8]] { try readsGoTo.metadata(keys: keys) }
    public func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        try readsGoTo.metadata(prefix: prefix, after: after, limit: limit)
    }
}
