import PostgresNIO
import StrataStorage

/// Writes inside the store's single writer turn.
///
/// The backend has taken the store's advisory lock before this transaction's first statement,
/// so no other process or machine writes until it is released, after the commit. Writes are
/// held here (the last write to a record, link list or metadata key wins) and flushed as **one
/// statement** — data-modifying `WITH` clauses over `unnest`ed array parameters, one per
/// column, whatever the number of rows — which PostgreSQL runs atomically. A save whose reads
/// need its own earlier writes flushes them first, inside `BEGIN … COMMIT`; a save that only
/// reads then writes (nearly all) is the lock, its reads, and one statement.
final class PostgresWriteTransaction: PostgresReadTransaction, StorageWriteTransaction {
    /// The pending writes.
    private var pending = PendingWrites()
    /// Whether `BEGIN` was sent (a flush before the end opens a transaction).
    private(set) var inTransaction = false
    /// Metadata entries read with the lock, by key (nil: the store has no such entry).
    private var prefetched: [String: [UInt8]?]
    /// Keys read with ``metadata(_:)`` in this transaction.
    private(set) var metadataKeysRead = Set<String>()
    /// Per entity, IDs this transaction found absent since its last flush (the engine asks before
    /// every insert): under the store's lock they stay absent, so their rows are flushed with a
    /// plain `INSERT`, not an upsert (which costs PostgreSQL a third more per row).
    private var knownAbsent: [String: Set<RecordID>] = [:]

    /// The channel the flush notifies, so observers elsewhere look at history.
    let channel: String

    /// - Parameter inTransaction: Whether the caller has begun a transaction (a migration): then
    ///   every read that needs the pending writes just flushes them.
    init(
        session: PostgresSession, layout: PostgresLayout, channel: String, inTransaction: Bool = false,
        prefetched: [String: [UInt8]?] = [:]
    ) {
        self.channel = channel
        self.inTransaction = inTransaction
        self.prefetched = prefetched
        super.init(session: session, layout: layout)
    }

    override func willRead(_ entity: String?, metadata: Bool = false) throws {
        guard !pending.isEmpty else { return }
        let needed: Bool
        if metadata {
            needed = !pending.metadata.isEmpty
        } else if let entity {
            needed = pending.touches(entity)
        } else {
            needed = true
        }
        guard needed else { return }
        if !inTransaction {
            try session.execute("BEGIN ISOLATION LEVEL READ COMMITTED")
            inTransaction = true
        }
        try flush()
    }

    override func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        let found = try super.existingIDs(entity, among: ids)
        knownAbsent[entity, default: []].formUnion(ids.lazy.filter { !found.contains($0) })
        return found
    }

    /// A metadata value: this transaction's own pending write, else the value read with the
    /// lock, else the store's — with no flush, since one key's value is known without one.
    override func metadata(_ key: String) throws -> [UInt8]? {
        metadataKeysRead.insert(key)
        if let pendingValue = pending.metadata[key] { return pendingValue }
        if let known = prefetched[key] { return known }
        return try super.metadata(key)
    }

    /// Many metadata values: this transaction's pending writes and the values read with the lock
    /// first, the rest in one statement.
    override func metadata(keys: [String]) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        var rest: [String] = []
        for key in keys {
            metadataKeysRead.insert(key)
            if let pendingValue = pending.metadata[key] {
                found[key] = pendingValue
            } else if let known = prefetched[key] {
                found[key] = known
            } else {
                rest.append(key)
            }
        }
        return found.merging(try super.metadata(keys: rest)) { mine, _ in mine }
    }

    /// Writes what is pending in one statement.
    func flush() throws {
        guard !pending.isEmpty else { return }
        let statement = try pending.statement(layout: layout, channel: channel, knownAbsent: knownAbsent)
        knownAbsent = [:]
        // What is flushed is the store's value from now on.
        for (key, value) in pending.metadata where prefetched[key] != nil { prefetched[key] = .some(value) }
        pending = PendingWrites()
        try session.execute(statement.sql, statement.binds)
    }

    /// Makes the transaction's writes durable: one statement when nothing was flushed before,
    /// else the rest and `COMMIT`.
    func commit() throws {
        if inTransaction {
            if pending.isEmpty { try flushNotify() } else { try flush() }
            try session.execute("COMMIT")
            inTransaction = false
        } else {
            try flush()
        }
    }

    /// Undoes what was flushed (nothing was written if nothing was).
    func rollback() {
        pending = PendingWrites()
        if inTransaction {
            _ = try? session.execute("ROLLBACK")
            inTransaction = false
        }
    }

    private func flushNotify() throws {
        var binds = PostgresBindings()
        binds.append(strata: .string(channel))
        try session.execute("SELECT pg_notify($1, '')", binds)
    }

    func put(_ record: Record) throws {
        _ = try layout.table(record.entity)
        pending.put(record)
    }

    func put(contentsOf records: [Record]) throws {
        var checked: Set<String> = []
        for record in records where checked.insert(record.entity).inserted { _ = try layout.table(record.entity) }
        pending.put(contentsOf: records)
    }

    func delete(_ entity: String, id: RecordID) throws {
        try delete(entity, ids: [id])
    }

    func delete(_ entity: String, ids: [RecordID]) throws {
        let table = try layout.table(entity)
        let relationships = table.entity.relationships.filter(\.keepsLinkList).map(\.name)
        for id in Self.storable(ids) { pending.delete(entity, id: id, linkLists: relationships) }
    }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        guard layout.schema.entity(entity)?.relationship(relationship)?.keepsLinkList == true else {
            throw StrataError(
                .unknownProperty, entity: entity, property: relationship,
                "\(relationship) of \(entity) keeps no link list")
        }
        pending.setLinks(entity, relationship, owner, targets)
    }

    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        pending.metadata[key] = .some(value)
    }
}
