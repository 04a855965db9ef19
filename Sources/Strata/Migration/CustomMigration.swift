/// What a custom stage's closure works with (``MigrationStage/custom(from:to:_:)``): the store as
/// it was, in the old version's layout, and the store being written, in the new one — untyped
/// `Record`s on both sides, inside the migration's one write transaction.
///
/// By the time the closure runs, every record has been carried over by the stage's inferred steps
/// (renames followed, defaults filled); the closure changes what those cannot express.
///
/// ```swift
/// .custom(from: "2", to: "3") { migration in
///     try migration.forEachOldRecord("Person") { old in
///         var person = try migration.record("Person", id: old.id) ?? migration.newRecord("Person", id: old.id)
///         guard case .string(let name) = old["name"] else { return }
///         let parts = name.split(separator: " ", maxSplits: 1)
///         person["first"] = .string(parts.first.map(String.init) ?? "")
///         person["last"] = .string(parts.count > 1 ? String(parts[1]) : "")
///         try migration.put(person)
///     }
/// }
/// ```
///
/// Not `Sendable`: it lives only for the closure it is passed to. Records are read in batches, so
/// the closure's memory does not grow with the store. Writes bypass delete rules and inverse
/// upkeep (the engine's save rules apply to the app's saves, not to a migration's rewrite); each
/// record put is checked against the new version's types and value rules, and after the closure
/// the stage checks required properties and unique constraints over the whole store.
public final class CustomMigration {
    /// The version the stage starts from.
    public let source: Schema
    /// The version the stage ends at.
    public let target: Schema
    let old: any StorageReadTransaction
    let new: any StorageWriteTransaction
    let executor: QueryExecutor
    let batchSize: Int
    /// Entities the closure wrote to: their required properties and unique constraints are
    /// checked after it.
    private(set) var touched: Set<String> = []
    /// Puts not yet written: written a batch at a time (versions read for the batch at once),
    /// and before any read or delete, so the closure always reads what it wrote.
    private var pending: [Record] = []
    /// Deletes and link lists written since the last checkpoint.
    private var unbatchedWrites = 0
    /// The stored state of records the closure was handed (the current batch of
    /// `forEachRecord(_:_:)`, and `record(_:id:)`'s answers), kept current as puts are written and
    /// deletes made: what `flush()` compares a put with, so it reads again only records the
    /// closure did not read. Bounded by two batches.
    private var known: [RecordKey: Record] = [:]
    /// Records put without a value for a required property (the first such property), until put
    /// again whole or deleted: after the closure, an entity whose records the stage did not reshape
    /// is checked from this rather than by reading every record again.
    private(set) var missingRequired: [RecordKey: String] = [:]

    /// Commits what is written so far on a shadow copy (see `SchemaChangeTransaction.checkpoint()`).
    private let checkpoint: () throws -> Void

    init(
        source: Schema, target: Schema, old: any StorageReadTransaction, new: any StorageWriteTransaction,
        executor: QueryExecutor, batchSize: Int,
        checkpoint: @escaping () throws -> Void = {}
    ) {
        self.checkpoint = checkpoint
        self.source = source
        self.target = target
        self.old = old
        self.new = new
        self.executor = executor
        self.batchSize = batchSize
    }

    /// Calls `body` with every record of `entity` as the store held it before the stage, in ID
    /// order. (An entity whose shape the stage does not change keeps its storage: its "old"
    /// records are its current ones, including what the closure already wrote.)
    public func forEachOldRecord(_ entity: String, _ body: (Record) throws -> Void) throws {
        try flush()
        _ = try source.requireEntity(entity)
        try Migrator.forEachBatch(entity, in: old, executor: executor, size: batchSize) { batch in
            for record in batch { try body(record) }
        }
    }

    /// A record as the store held it before the stage, or nil.
    public func oldRecord(_ entity: String, id: RecordID) throws -> Record? {
        try flush()
        _ = try source.requireEntity(entity)
        return try old.record(entity, id: id)
    }

    /// Calls `body` with every record of `entity` in the new layout, in ID order.
    public func forEachRecord(_ entity: String, _ body: (Record) throws -> Void) throws {
        try flush()
        _ = try target.requireEntity(entity)
        try Migrator.forEachBatch(entity, in: new, executor: executor, size: batchSize) { batch in
            known.removeAll(keepingCapacity: true)
            for record in batch { known[record.key] = record }
            for record in batch { try body(record) }
        }
    }

    /// A record in the new layout, or nil.
    public func record(_ entity: String, id: RecordID) throws -> Record? {
        try flush()
        _ = try target.requireEntity(entity)
        let found = try new.record(entity, id: id)
        if let found {
            if known.count >= 2 * batchSize { known.removeAll(keepingCapacity: true) }
            known[found.key] = found
        }
        return found
    }

    /// An empty record of `entity` in the new layout (every property null), to fill and `put(_:)`.
    public func newRecord(_ entity: String, id: RecordID) throws -> Record {
        let description = try target.requireEntity(entity)
        return Record(entity: entity, id: id, layout: description.layout, slots: [])
    }

    /// Writes `record` in the new layout: inserted, or replacing the record with its ID. Its version
    /// becomes one more than the stored record's when a value changed (so sync and merge policies
    /// see the change), 1 for a new record. A property the new version does not have, a value of
    /// the wrong type, or one no store can hold is a typed error naming the record and property.
    public func put(_ record: Record) throws {
        let entity = try target.requireEntity(record.entity)
        for name in record.layout.names where entity.layout.slot(name) == nil && !record[name].isNull {
            throw StrataError(
                .unknownProperty, entity: entity.name, recordID: record.id, property: name,
                "version \(target.version ?? "new") of \(entity.name) has no property \(name)")
        }
        guard record.id.kind == entity.idKind else {
            throw StrataError(
                .typeMismatch, entity: entity.name, recordID: record.id, property: "id",
                "\(entity.name) IDs are \(entity.idKind.rawValue)")
        }
        var stored = record.inLayout(entity.layout)
        stored.id = ValueRules.normalized(record.id)
        for (slot, name) in entity.layout.names.enumerated() {
            var value = ValueRules.normalized(stored.slots[slot])
            if let attribute = entity.attribute(name), !attribute.type.isScalar, !value.isNull {
                value = ValueRules.canonical(value, type: attribute.type, element: attribute.element) ?? value
                if attribute.type.accepts(value),
                    let reason = ValueRules.violation(of: value, type: attribute.type, element: attribute.element)
                {
                    throw StrataError(
                        .validationFailed, entity: entity.name, recordID: record.id, property: name, reason)
                }
            }
            stored.slots[slot] = value
            if value.isNull { continue }
            if let reason = ValueRules.violation(of: value) {
                throw StrataError(.validationFailed, entity: entity.name, recordID: record.id, property: name, reason)
            }
            if let attribute = entity.attribute(name), !attribute.type.accepts(value) {
                throw StrataError(
                    .typeMismatch, entity: entity.name, recordID: record.id, property: name,
                    "expected \(attribute.type), got \(value)")
            }
            if entity.attribute(name) == nil, RecordID(value) == nil {
                throw StrataError(
                    .typeMismatch, entity: entity.name, recordID: record.id, property: name,
                    "a to-one holds the destination's ID, got \(value)")
            }
        }
        touched.insert(entity.name)
        if let missing = Migrator.requiredSlots(of: entity).first(where: { stored.slots[$0.slot].isNull }) {
            missingRequired[stored.key] = missing.name
        } else if !missingRequired.isEmpty {
            missingRequired[stored.key] = nil
        }
        pending.append(stored)
        if pending.count >= batchSize { try flush() }
    }

    /// Writes the pending puts: a version one more than the stored record's where a value changed
    /// (the same put twice in a batch counts once), 1 for a new record.
    func flush() throws {
        guard !pending.isEmpty else { return }
        var batch = pending
        pending = []
        var latest: [RecordKey: Int] = [:]
        for (position, record) in batch.enumerated() { latest[record.key] = position }
        batch = batch.enumerated().filter { latest[$0.element.key] == $0.offset }.map(\.element)
        for (entity, indices) in Dictionary(grouping: batch.indices, by: { batch[$0].entity }) {
            let unread = indices.filter { known[batch[$0].key] == nil }.map { batch[$0].id }
            let read = unread.isEmpty ? [:] : try new.records(entity, ids: unread)
            for index in indices {
                if let stored = known[batch[index].key] ?? read[batch[index].id] {
                    batch[index].version = stored.differs(from: batch[index]) ? stored.version + 1 : stored.version
                } else {
                    batch[index].version = 1
                }
            }
        }
        try new.put(contentsOf: batch)
        for record in batch where known[record.key] != nil { known[record.key] = record }
        try checkpoint()
    }

    /// Removes a record (and its own link lists) from the new layout. Delete rules do not run:
    /// remove or re-point what refers to it too, or the check afterwards finds the dangling
    /// references only where a relationship is required.
    public func delete(_ entity: String, id: RecordID) throws {
        _ = try target.requireEntity(entity)
        try flush()
        touched.insert(entity)
        try new.delete(entity, id: id)
        let key = RecordKey(entity: entity, id: ValueRules.normalized(id))
        known[key] = nil
        missingRequired[key] = nil
        try countUnbatchedWrite()
    }

    /// The link list of `owner` for a relationship the new version keeps as links.
    public func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        try flush()
        return try new.links(entity, relationship: relationship, from: owner)
    }

    /// Replaces the link list of `owner` (a many-to-many's owning side or an ordered to-many).
    public func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        let description = try target.requireEntity(entity)
        guard let found = description.relationship(relationship), found.keepsLinkList else {
            throw StrataError(
                .unknownProperty, entity: entity, property: relationship,
                "\(entity).\(relationship) is not a relationship this version keeps as a link list")
        }
        touched.insert(entity)
        try flush()
        try new.setLinks(entity, relationship: relationship, from: owner, to: targets)
        try countUnbatchedWrite()
    }

    /// Deletes and link lists are written one at a time: a checkpoint every batch of them.
    private func countUnbatchedWrite() throws {
        unbatchedWrites += 1
        if unbatchedWrites >= batchSize {
            unbatchedWrites = 0
            try checkpoint()
        }
    }
}
