import PostgresNIO
import Strata

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
    init(session: PostgresSession, layout: PostgresLayout, channel: String, inTransaction: Bool = false, prefetched: [String: [UInt8]?] = [:]) {
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
            throw StrataError(.unknownProperty, entity: entity, property: relationship, "\(relationship) of \(entity) keeps no link list")
        }
        pending.setLinks(entity, relationship, owner, targets)
    }

    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        pending.metadata[key] = .some(value)
    }
}

/// Writes held until a flush, the last one per key winning.
struct PendingWrites {
    /// Per entity: records to upsert, or nil to delete.
    var records: [String: [RecordID: Record?]] = [:]
    /// Per (entity, relationship): owners' new lists (empty: removed).
    var links: [LinkKey: [RecordID: [RecordID]]] = [:]
    var metadata: [String: [UInt8]?] = [:]

    struct LinkKey: Hashable {
        let entity: String
        let relationship: String
    }

    var isEmpty: Bool { records.isEmpty && links.isEmpty && metadata.isEmpty }

    func touches(_ entity: String) -> Bool {
        records[entity] != nil || links.keys.contains { $0.entity == entity }
    }

    mutating func put(_ record: Record) {
        records[record.entity, default: [:]][record.id] = .some(record)
    }

    mutating func delete(_ entity: String, id: RecordID, linkLists: [String]) {
        records[entity, default: [:]][id] = .some(nil)
        for relationship in linkLists { links[LinkKey(entity: entity, relationship: relationship), default: [:]][id] = [] }
    }

    mutating func setLinks(_ entity: String, _ relationship: String, _ owner: RecordID, _ targets: [RecordID]) {
        links[LinkKey(entity: entity, relationship: relationship), default: [:]][owner] = targets
    }

    /// One statement doing every pending write, then notifying `channel`. Records whose IDs are
    /// in `knownAbsent` are inserted; the others upserted.
    func statement(layout: PostgresLayout, channel: String, knownAbsent: [String: Set<RecordID>] = [:]) throws -> (sql: String, binds: PostgresBindings) {
        var binds = PostgresBindings()
        var clauses: [String] = []
        func parameter(_ array: PostgresWireArray, cast: String) -> String {
            binds.append(array)
            return "$\(binds.count)::\(cast)"
        }
        for (entity, changes) in records.sorted(by: { $0.key < $1.key }) {
            let table = try layout.table(entity)
            let idType = PostgresValues.wireType(table.entity.idKind)
            let idCast = PostgresLayout.arrayCast(PostgresValues.columnType(table.entity.idKind))
            var deleted = PostgresWireArray(element: idType)
            // [0]: rows known to be new (a plain INSERT); [1]: the others (an upsert).
            var batches = [RowBatch(table: table), RowBatch(table: table)]
            let absent = knownAbsent[entity] ?? []
            for (id, change) in changes {
                guard let record = change else {
                    deleted.append(id.value)
                    continue
                }
                batches[absent.contains(id) ? 0 : 1].append(record, layout: table.layout)
            }
            if !deleted.isEmpty {
                clauses.append("DELETE FROM \(table.name) WHERE \"id\" = ANY(\(parameter(deleted, cast: idCast)))")
            }
            let names = ["\"id\"", "\"strata_version\""] + table.columns.map { PostgresLayout.column($0.name) }
            for (index, batch) in batches.enumerated() where !batch.ids.isEmpty {
                var arrays = [parameter(batch.ids, cast: idCast), parameter(batch.versions, cast: "bigint[]")]
                for (column, values) in zip(table.columns, batch.columns) { arrays.append(parameter(values, cast: column.kind.arrayCast)) }
                let insert = "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) SELECT * FROM unnest(\(arrays.joined(separator: ", ")))"
                clauses.append(index == 0 ? insert
                    : insert + " ON CONFLICT (\"id\") DO UPDATE SET " + names.dropFirst().map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", "))
            }
        }
        for (key, lists) in links.sorted(by: { ($0.key.entity, $0.key.relationship) < ($1.key.entity, $1.key.relationship) }) {
            let table = layout.linkTable(key.entity, key.relationship)
            guard let owner = layout.schema.entity(key.entity), let relationship = owner.relationship(key.relationship),
                let destination = layout.schema.entity(relationship.destination)
            else { continue }
            let ownerCast = PostgresLayout.arrayCast(PostgresValues.columnType(owner.idKind))
            let targetCast = PostgresLayout.arrayCast(PostgresValues.columnType(destination.idKind))
            var owners = PostgresWireArray(element: PostgresValues.wireType(owner.idKind))
            var linkOwners = PostgresWireArray(element: PostgresValues.wireType(owner.idKind))
            var targets = PostgresWireArray(element: PostgresValues.wireType(destination.idKind))
            var positions = PostgresWireArray(element: .int8)
            for (ownerID, list) in lists {
                owners.append(ownerID.value)
                for (position, target) in list.enumerated() {
                    linkOwners.append(ownerID.value)
                    targets.append(target.value)
                    positions.append(.int(Int64(position)))
                }
            }
            // The delete and the insert run on one snapshot: the delete never sees the new rows.
            clauses.append("DELETE FROM \(table) WHERE owner = ANY(\(parameter(owners, cast: ownerCast)))")
            if !linkOwners.isEmpty {
                clauses.append("INSERT INTO \(table) (owner, target, position) SELECT * FROM unnest(\(parameter(linkOwners, cast: ownerCast)), \(parameter(targets, cast: targetCast)), \(parameter(positions, cast: "bigint[]")))")
            }
        }
        if !metadata.isEmpty {
            var removed = PostgresWireArray(element: .text)
            var keys = PostgresWireArray(element: .text)
            var values = PostgresWireArray(element: .bytea)
            for (key, value) in metadata {
                if let value {
                    keys.append(.string(key))
                    values.append(.data(.init(value)))
                } else {
                    removed.append(.string(key))
                }
            }
            if !removed.isEmpty {
                clauses.append("DELETE FROM \(layout.metaTable) WHERE key = ANY(\(parameter(removed, cast: "text[]")))")
            }
            if !keys.isEmpty {
                clauses.append("INSERT INTO \(layout.metaTable) (key, value) SELECT * FROM unnest(\(parameter(keys, cast: "text[]")), \(parameter(values, cast: "bytea[]"))) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value")
            }
        }
        binds.append(strata: .string(channel))
        let notify = "SELECT pg_notify($\(binds.count), '')"
        let with = clauses.enumerated().map { "w\($0.offset) AS (\($0.element))" }.joined(separator: ", ")
        return (clauses.isEmpty ? notify : "WITH \(with) \(notify)", binds)
    }
}

/// One column array per stored column of an entity's table, filled record by record.
private struct RowBatch {
    var ids: PostgresWireArray
    var versions = PostgresWireArray(element: .int8)
    var columns: [PostgresWireArray]

    init(table: PostgresLayout.Table) {
        ids = PostgresWireArray(element: PostgresValues.wireType(table.entity.idKind))
        columns = table.columns.map { PostgresWireArray(element: $0.kind.wireType) }
    }

    mutating func append(_ record: Record, layout: RecordLayout) {
        ids.append(record.id.value)
        versions.append(.int(record.version))
        for (index, value) in record.inLayout(layout).slots.enumerated() where index < columns.count {
            columns[index].append(value)
        }
    }
}
