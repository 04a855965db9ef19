/// A storage engine Strata runs on: the SPI a backend implements.
///
/// ## Contract
/// - `read(_:)` and `write(_:)` are async on the outside and run a **synchronous** closure on
///   the backend's own executor (a connection, a writer thread, a lock). The transaction handle
///   passed in must not escape the closure.
/// - A write transaction sees its own changes. Writes are serialised: at most one write closure
///   runs at a time. Throwing from a write closure rolls back everything it did; returning commits
///   it atomically and durably (as durable as the backend documents).
/// - A read transaction sees one consistent committed state for its whole duration.
/// - Backends store records, link lists and metadata. They never implement delete rules, inverses,
///   validation, uniqueness, versioning or history: the engine does, inside one write transaction,
///   so every backend gets them identically.
/// - `capabilities` declare which parts of a ``FetchPlan`` the backend evaluates; the engine
///   evaluates the rest, so a backend may start with ``FetchCapabilities/none`` and grow.
/// - Values reach a backend already under ``ValueRules``: text in NFC (so comparing UTF-8 bytes is
///   the contract's order and equality), no NaN, finite dates, string IDs of at most
///   ``RecordID/maximumStringIDLength`` bytes and never empty. A lookup may still name a longer
///   or an empty ID (a query constant, a reference): answer it as absent, never with the
///   backend's own key-size error.
///   Store every value exactly: doubles and dates bit for bit, integers over the whole `Int64`
///   range, empty text and bytes as values (not null).
///
/// The conformance suite (`StrataConformance`) checks all of this; a backend is done when it passes.
public protocol StorageBackend: Sendable {
    /// The schema the backend was opened with.
    var schema: Schema { get }
    /// Which parts of a fetch plan the backend evaluates natively.
    var capabilities: FetchCapabilities { get }
    /// Runs `body` in a read transaction.
    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T
    /// Runs `body` in the single write transaction; commits when it returns, rolls back when it throws.
    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T
    /// Releases the backend's resources. Later calls fail with ``StrataError/Code/storeClosed``.
    func close() async throws
    /// Names the stored data for this process (a canonical path): every handle onto the same data
    /// returns the same identity, so a commit through one wakes the observers of all (see
    /// ``ExternalCommitPolling``). Defaults to nil: the data is this handle's alone.
    var sharedIdentity: String? { get }
    /// How to notice commits by other processes, for a backend whose data they can write.
    /// Defaults to nil: nobody else writes.
    var externalCommits: ExternalCommitPolling? { get }
    /// A read view held at the current committed state for many reads (see ``StorageSnapshot``),
    /// or `nil` when the backend cannot hold one cheaply (the default).
    func openSnapshot() async throws -> (any StorageSnapshot)?
}

/// Reads inside a transaction. Not `Sendable`: it lives only for the closure it was passed to.
public protocol StorageReadTransaction {
    /// The schema the backend was opened with.
    var schema: Schema { get }

    /// The record with this ID, or `nil`.
    func record(_ entity: String, id: RecordID) throws -> Record?

    /// Records matching the plan. The engine only sends the parts ``StorageBackend/capabilities``
    /// allow: a predicate using declared features only; sort keys only when `sorting` is declared;
    /// limit and offset only when `paging` is. Results follow the sort keys (nulls first ascending),
    /// then the record ID ascending as the last key.
    func fetch(_ plan: FetchPlan) throws -> [Record]

    /// How many records match the plan's predicate (sort, limit and offset are not sent).
    /// Called only when `counting` is declared.
    func count(_ plan: FetchPlan) throws -> Int

    /// The plan's rows (see ``AggregatePlan`` and ``AggregateFunction`` for their exact values).
    /// Called only when ``FetchCapabilities/aggregating`` is declared, with a predicate that uses
    /// declared features only; the default throws ``StrataError/Code/unsupportedStore``.
    func aggregate(_ plan: AggregatePlan) throws -> [AggregateRow]

    /// IDs of the records of `entity` whose stored property `property` (a to-one reference or an
    /// indexed attribute) equals `target`'s value, ID ascending. Must use an index: delete rules
    /// and inverse upkeep call it for every deleted or re-pointed record.
    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID]

    /// The records among `ids` that exist, by ID. Called with hundreds or thousands of IDs at once
    /// (cascades, batch loads, a save's referenced records); the default looks each up with
    /// `record(_:id:)`, so override it only to answer a set in fewer round trips.
    func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record]

    /// The versions of the records among `ids` that exist, without their values: a cascade asks it
    /// for children whose own rules need nothing of them but the version history records. The
    /// default reads them with `records(_:ids:)`; a backend overrides it to skip decoding.
    func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64]

    /// Which of `ids` exist, without reading the records: every insert's duplicate-ID check asks
    /// it for the whole save's IDs. The default reads them with `records(_:ids:)`; a backend
    /// overrides it to answer from its ID index alone.
    func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID>

    /// `referrers(_:property:to:)` for many targets at once: for each target that has any, its
    /// referrers, ID ascending. The default asks once per target.
    func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]]

    /// The ordered link list of `owner` for a relationship whose storage is
    /// ``RelationshipDescription/Storage/links`` or ``RelationshipDescription/Storage/orderedLinks``.
    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID]

    /// The owners whose link list for `relationship` contains `target`, ID ascending (indexed).
    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID]

    /// `links(_:relationship:from:)` for many owners at once: for each owner whose list is not
    /// empty, its list in link order. The default asks once per owner; a backend overrides it to
    /// answer from its (owner, position) key in one query per batch.
    func links(_ entity: String, relationship: String, fromEach owners: [RecordID]) throws -> [RecordID: [RecordID]]

    /// `linkOwners(_:relationship:to:)` for many targets at once: for each target that is in any
    /// list, its owners, ID ascending. The default asks once per target; a backend overrides it
    /// to answer from its target index in one query per batch.
    func linkOwners(_ entity: String, relationship: String, toEach targets: [RecordID]) throws -> [RecordID:
        [RecordID]]

    /// A metadata value (schema state, counters, history live here under `strata.` keys).
    func metadata(_ key: String) throws -> [UInt8]?

    /// The metadata values of many keys (absent keys are left out). The default calls
    /// `metadata(_:)` for each; a backend overrides it to read the set in fewer operations (a sync
    /// server reads each pulled record's stamp here).
    func metadata(keys: [String]) throws -> [String: [UInt8]]

    /// Metadata entries whose key starts with `prefix` and sorts after `after` (when given), in
    /// ascending key order, at most `limit` of them.
    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])]
}

/// Writes inside the single write transaction.
public protocol StorageWriteTransaction: StorageReadTransaction {
    /// Inserts or replaces the record (the engine has already set its version).
    func put(_ record: Record) throws
    /// Inserts or replaces many records (each with its version set), in any order. The default
    /// calls `put(_:)` for each; a backend overrides it to write a set in fewer operations.
    func put(contentsOf records: [Record]) throws
    /// Removes the record and its own link lists. Does nothing if it does not exist.
    func delete(_ entity: String, id: RecordID) throws
    /// Removes a set of records of one entity and their own link lists; IDs that do not exist are
    /// skipped. The default calls `delete(_:id:)` for each; a backend overrides it to remove the
    /// set in set-sized operations (cascades and batch deletes arrive here).
    func delete(_ entity: String, ids: [RecordID]) throws
    /// Replaces `owner`'s link list for `relationship` (an empty list removes it).
    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws
    /// Sets or (with `nil`) removes a metadata value.
    func setMetadata(_ key: String, _ value: [UInt8]?) throws
}

extension StorageReadTransaction {
    public func aggregate(_ plan: AggregatePlan) throws -> [AggregateRow] {
        throw StrataError(
            .unsupportedStore, entity: plan.entity, "this backend does not aggregate; it must not declare `aggregating`"
        )
    }

    public func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        Set(try records(entity, ids: ids).keys)
    }

    public func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        try records(entity, ids: ids).mapValues(\.version)
    }

    public func metadata(keys: [String]) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        for key in keys where found[key] == nil {
            if let value = try metadata(key) { found[key] = value }
        }
        return found
    }

    public func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        var found: [RecordID: Record] = [:]
        for id in ids where found[id] == nil {
            if let record = try record(entity, id: id) { found[id] = record }
        }
        return found
    }

    public func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID:
        [RecordID]]
    {
        try referrersOneTargetAtATime(entity, property: property, toEach: targets)
    }

    public func links(_ entity: String, relationship: String, fromEach owners: [RecordID]) throws -> [RecordID:
        [RecordID]]
    {
        try linksOneOwnerAtATime(entity, relationship: relationship, fromEach: owners)
    }

    public func linkOwners(_ entity: String, relationship: String, toEach targets: [RecordID]) throws -> [RecordID:
        [RecordID]]
    {
        try linkOwnersOneTargetAtATime(entity, relationship: relationship, toEach: targets)
    }

    /// The default of `links(_:relationship:fromEach:)`, callable by an override (or a wrapper):
    /// one `links(_:relationship:from:)` per distinct owner.
    public func linksOneOwnerAtATime(_ entity: String, relationship: String, fromEach owners: [RecordID]) throws
        -> [RecordID: [RecordID]]
    {
        try Self.eachDistinct(owners) { try links(entity, relationship: relationship, from: $0) }
    }

    /// The default of `linkOwners(_:relationship:toEach:)`, callable by an override (or a wrapper):
    /// one `linkOwners(_:relationship:to:)` per distinct target.
    public func linkOwnersOneTargetAtATime(_ entity: String, relationship: String, toEach targets: [RecordID]) throws
        -> [RecordID: [RecordID]]
    {
        try Self.eachDistinct(targets) { try linkOwners(entity, relationship: relationship, to: $0) }
    }

    /// `lookup` once per distinct key; the keys it answers something for, with the answer.
    private static func eachDistinct(_ keys: [RecordID], _ lookup: (RecordID) throws -> [RecordID]) rethrows
        -> [RecordID: [RecordID]]
    {
        var found: [RecordID: [RecordID]] = [:]
        for key in Set(keys) {
            let answer = try lookup(key)
            if !answer.isEmpty { found[key] = answer }
        }
        return found
    }

    /// The default of `referrers(_:property:toEach:)`, callable by an override for the cases it
    /// does not batch: one `referrers(_:property:to:)` per distinct target.
    public func referrersOneTargetAtATime(_ entity: String, property: String, toEach targets: [RecordID]) throws
        -> [RecordID: [RecordID]]
    {
        try Self.eachDistinct(targets) { try referrers(entity, property: property, to: $0) }
    }
}

extension StorageWriteTransaction {
    public func put(contentsOf records: [Record]) throws {
        for record in records { try put(record) }
    }

    public func delete(_ entity: String, ids: [RecordID]) throws {
        for id in ids { try delete(entity, id: id) }
    }
}
