/// One save in progress, inside one backend write transaction.
///
/// Mutations are staged as they arrive (inverses kept on both sides at once, so reads in the same
/// transaction see a consistent graph). `commit(author:contextName:)` then runs the rest of the
/// pipeline: expand deletes by their rules → validate → check uniqueness → write records with
/// bumped versions and link lists → append one history transaction. Any error before the backend
/// commits leaves the store untouched: the caller's write closure throws and the backend rolls back.
package final class SaveSession {
    package let workingSet: WorkingSet
    let schema: Schema
    /// Deletes asked for by the caller, in order; the rules expand them at commit.
    var requestedDeletes: [RecordKey] = []
    /// Deletes that apply no delete rule (see ``evict(_:)``).
    var evicted: Set<RecordKey> = []
    /// The last state of every deleted record (its references decide what the rules reach).
    var deletedSnapshots: [RecordKey: Record] = [:]
    /// To-many relationships whose membership changed and that declare count bounds.
    var touchedMemberships: Set<LinkKey> = []
    /// To-many relationships whose membership changed and that a derived attribute counts.
    var countedMemberships: Set<LinkKey> = []
    /// Inserted IDs not yet checked against the committed records, by entity.
    var uncheckedInserts: [String: [RecordID]] = [:]
    /// The latest inserts of one entity, not yet in `uncheckedInserts`.
    var uncheckedRun: (entity: String, ids: [RecordID])?
    /// Set when the save copies another store's state (a sync pull): a reference that dangles
    /// there because its destination was deleted under noAction may dangle here too, and a
    /// deletion the server made is not refused by a deny over local referrers (they keep their
    /// reference, as under noAction, until the server's answers about them arrive).
    package var mirrorsRemoteState = false
    /// Set when the save applies deletions another store already made with its own rules (a sync
    /// client applying the server's tombstones): the destination entities whose records the local
    /// rules still reach — those the other store cannot know of (local-only entities). What the
    /// server's rules did to the records it shares arrives as changes of their own, and the local
    /// copies of those records may differ by changes not pushed yet (a trip's traveller changed
    /// here, so a cascade from the old traveller's deletion reaches it here and not there); so the
    /// relationships into them are left as under noAction. `nil`: every relationship's rule acts.
    package var mirroredRulesReach: (@Sendable (String) -> Bool)?
    /// Set when the save loads records that already have identities, versions and link lists
    /// (an import, a copy): inserts keep their versions, link lists are taken as given, inverses
    /// are not re-derived (the source kept them), and references are checked once the whole load
    /// is in (`StoreLoader.finish()`), since a batch may refer to records of a later one.
    package var loading = false
    /// Whether the delete rules may reach a record (`nil`: every record). A record they may not
    /// reach is neither deleted by a cascade nor counted by a deny: its reference to the deleted
    /// record is cleared instead, as a nullify would. A sync server sets it to "the pushing
    /// identity may write it", so one identity's delete never removes, or is blocked by, another's.
    package var deleteRulesReach: ((Record) throws -> Bool)?
    /// Entities every record of which the delete rules reach whatever `deleteRulesReach` says (an
    /// entity the pushing identity may write all of): their records are not asked about, and a
    /// cascade into them may stage deletes from versions alone.
    package var deleteRulesReachAll: @Sendable (String) -> Bool = { _ in false }
    /// The app's hooks, run by `commit` (not by a nested context's `prepare`, nor for a load).
    var hooks = SaveHooks()
    /// Who `commit` hands the save to; the delete rules ask them which deleted records they read.
    var commitParticipants: [any CommitParticipant] = []

    /// Where `commit(author:contextName:collectWritten:)` writes; `nil` for an overlay staged
    /// over a read transaction, which can never commit.
    let writer: (any StorageWriteTransaction)?

    init(transaction: any StorageWriteTransaction, executor: QueryExecutor) {
        self.workingSet = WorkingSet(base: transaction, executor: executor)
        self.schema = transaction.schema
        self.writer = transaction
    }

    /// A session whose staged state only overlays `reader`: for reads that must see changes not
    /// yet saved.
    init(overlaying reader: any StorageReadTransaction, executor: QueryExecutor) {
        self.workingSet = WorkingSet(base: reader, executor: executor)
        self.schema = reader.schema
        self.writer = nil
    }

    // MARK: Records

    /// Inserts a new record. An existing ID is `StrataError.Code.duplicateID` (upsert is explicit).
    package func insert(_ input: Record) throws {
        // The entity is resolved once per insert and the key looked up once in the working set.
        let entity = try schema.requireEntity(input.entity)
        var record = try normalize(input, inserting: true, entity: entity)
        let key = record.key
        if let entry = workingSet.entry(key) {
            if entry.current == nil && entry.original != nil {
                throw StrataError(
                    .duplicateID, entity: key.entity, recordID: key.id,
                    "record was deleted earlier in this save; save the delete first")
            }
            if entry.current != nil { throw duplicate(key) }
            record = try adoptOneToOnePointers(record, entity: entity)
            try workingSet.stage(record)
        } else {
            // Whether a committed record has this ID is checked at commit, for all such inserts in
            // batched lookups, rather than with one backend read per insert.
            noteUnchecked(key)
            record = try adoptOneToOnePointers(record, entity: entity)
            workingSet.stageInsert(key, record, entity: entity)
        }
        try adoptListMembers(key, entity: entity)
        for relationship in entity.relationships {
            if relationship.isToOne, let target = RecordID(record[relationship.name]) {
                try maintainInverse(owner: key, relationship, old: nil, new: target)
            } else if !relationship.isToOne {
                touch(key.entity, relationship, key.id)
            }
        }
    }

    /// Remembers an insert whose ID is checked against the committed records at commit; runs of
    /// one entity (a batch insert) append without hashing the entity name per record.
    func noteUnchecked(_ key: RecordKey) {
        // No binding of the run here: a second reference to its IDs would copy them per append.
        if uncheckedRun?.entity == key.entity {
            uncheckedRun?.ids.append(key.id)
            return
        }
        flushUncheckedRun()
        uncheckedRun = (key.entity, [key.id])
    }

    private func flushUncheckedRun() {
        guard let run = uncheckedRun else { return }
        uncheckedRun = nil
        uncheckedInserts[run.entity, default: []].append(contentsOf: run.ids)
    }

    func duplicate(_ key: RecordKey) -> StrataError {
        StrataError(
            .duplicateID, entity: key.entity, recordID: key.id,
            "a record with this ID already exists (use upsert to replace it)")
    }

    /// Fails with `StrataError.Code.duplicateID` if any insert of this save reuses a committed ID.
    func checkInsertedIDs() throws {
        flushUncheckedRun()
        for (entity, ids) in uncheckedInserts.sorted(by: { $0.key < $1.key }) {
            // The smallest duplicate, so every backend names the same one.
            if let existing = try workingSet.base.existingIDs(entity, among: ids).min() {
                throw duplicate(RecordKey(entity: entity, id: existing))
            }
        }
        uncheckedInserts.removeAll()
    }

    /// Replaces every stored property of an existing record. A missing record is `StrataError.Code.notFound`.
    package func update(_ input: Record) throws {
        let record = try normalize(input, inserting: false)
        guard let existing = try workingSet.record(record.entity, id: record.id) else {
            throw StrataError(
                .notFound, entity: record.entity, recordID: record.id, "cannot update a record that does not exist")
        }
        try replace(existing, with: record)
    }

    /// Inserts unless a record with the ID exists (in the store or earlier in this save); returns
    /// whether it inserted. Inside the write transaction, so two concurrent saves cannot both insert.
    func insertIfAbsent(_ input: Record) throws -> Bool {
        if try workingSet.record(input.entity, id: input.id) != nil { return false }
        try insert(input)
        return true
    }

    /// Inserts or replaces, explicitly.
    func upsert(_ input: Record) throws {
        if try workingSet.record(input.entity, id: input.id) != nil {
            try update(input)
        } else {
            try insert(input)
        }
    }

    /// Changes some properties of an existing record, leaving the others.
    package func patch(_ input: RecordKey, _ values: [String: Value]) throws {
        let key = input.normalized
        guard var record = try workingSet.record(key.entity, id: key.id) else {
            throw StrataError(
                .notFound, entity: key.entity, recordID: key.id, "cannot update a record that does not exist")
        }
        for (name, value) in values { record[name] = value }
        try update(record)
    }

    /// Deletes a record; its relationships' delete rules apply at commit.
    /// Removes a record from this store without its delete rules — what a sync client does with
    /// a record it no longer subscribes to (it stays on the server): nothing cascades, nothing is
    /// denied or nullified, references to it stay as they are. Its own link lists go with it.
    package func evict(_ input: RecordKey) throws {
        let key = input.normalized
        guard let existing = try workingSet.record(key.entity, id: key.id) else { return }
        deletedSnapshots[key] = existing
        requestedDeletes.append(key)
        evicted.insert(key)
        try workingSet.stage(key, nil)
    }

    package func delete(_ input: RecordKey) throws {
        let key = input.normalized
        _ = try schema.requireEntity(key.entity)
        guard let existing = try workingSet.record(key.entity, id: key.id) else {
            throw StrataError(
                .notFound, entity: key.entity, recordID: key.id, "cannot delete a record that does not exist")
        }
        deletedSnapshots[key] = existing
        requestedDeletes.append(key)
        try workingSet.stage(key, nil)
    }

    private func replace(_ existing: Record, with input: Record) throws {
        var record = input
        record.version = existing.version
        try workingSet.stage(record)
        let entity = try schema.requireEntity(record.entity)
        for relationship in entity.relationships where relationship.isToOne {
            let old = RecordID(existing[relationship.name])
            let new = RecordID(record[relationship.name])
            if old != new { try maintainInverse(owner: record.key, relationship, old: old, new: new) }
        }
    }

    /// Sets one property through the same path as an update, keeping inverses.
    func assign(_ key: RecordKey, _ property: String, _ value: Value) throws {
        guard var record = try workingSet.record(key.entity, id: key.id) else {
            throw StrataError(.notFound, entity: key.entity, recordID: key.id, "record does not exist")
        }
        guard record[property] != value else { return }
        let existing = record
        record[property] = value
        try replace(existing, with: record)
    }

    /// Checks the entity, the ID kind and the property names; applies the value rules (text in
    /// NFC, no NaN, finite dates, string IDs within the length limit); fills defaults and nulls;
    /// widens integers stored in double attributes.
    func normalize(_ input: Record, inserting: Bool) throws -> Record {
        try normalize(input, inserting: inserting, entity: try schema.requireEntity(input.entity))
    }

    func normalize(_ input: Record, inserting: Bool, entity: EntityDescription) throws -> Record {
        guard input.id.kind == entity.idKind else {
            throw StrataError(
                .typeMismatch, entity: entity.name, recordID: input.id, property: "id",
                "\(entity.name) uses \(entity.idKind) IDs, got a \(input.id.kind) ID")
        }
        let id = ValueRules.normalized(input.id)
        if case .string(let text) = id, text.utf8.contains(0) {
            throw StrataError(
                .validationFailed, entity: entity.name, recordID: id, property: "id", "an ID may not contain U+0000")
        }
        try ValueRules.requireStorable(id, entity: entity.name)
        // The record moves into the entity's layout: attribute `i` is slot `i`, to-ones follow.
        // Missing properties get their default (or null), integers in double attributes become
        // doubles; a name outside the layout is an unknown property.
        let layout = entity.layout
        var slots: [Value]
        if input.layout === layout {
            slots = input.slots  // every property present (an explicit null keeps no default)
        } else {
            slots = [Value](repeating: .null, count: layout.count)
            for (position, name) in input.layout.names.enumerated() {
                guard let slot = layout.slot(name) else {
                    if entity.relationship(name) != nil {
                        throw StrataError(
                            .unknownProperty, entity: entity.name, recordID: input.id, property: name,
                            "\(name) is a to-many relationship; change it with link, unlink or setRelated")
                    }
                    throw StrataError(
                        .unknownProperty, entity: entity.name, recordID: input.id, property: name,
                        "\(name) is not an attribute or to-one of \(entity.name)")
                }
                slots[slot] = input.slots[position]
            }
            if inserting {
                for (slot, attribute) in entity.attributes.enumerated() where input.layout.slot(attribute.name) == nil {
                    slots[slot] = attribute.defaultValue ?? .null
                }
            }
        }
        var refused: (name: String, reason: String)?
        for (slot, attribute) in entity.attributes.enumerated() {
            if case .int(let number) = slots[slot], attribute.type == .double { slots[slot] = .double(Double(number)) }
            guard !attribute.type.isScalar, !slots[slot].isNull else { continue }
            if let canonical = ValueRules.canonical(slots[slot], type: attribute.type, element: attribute.element) {
                slots[slot] = canonical
            }
            if attribute.type.accepts(slots[slot]),
                let mismatch = ValueRules.elementMismatch(
                    of: slots[slot], type: attribute.type, element: attribute.element)
            {
                throw StrataError(.typeMismatch, entity: entity.name, recordID: id, property: attribute.name, mismatch)
            }
            if attribute.type.accepts(slots[slot]),
                let reason = ValueRules.violation(of: slots[slot], type: attribute.type, element: attribute.element),
                attribute.name < (refused?.name ?? "\u{10FFFF}")
            {
                refused = (attribute.name, reason)
            }
        }
        for slot in slots.indices {
            let value = slots[slot]
            if let replacement = ValueRules.replacement(for: value) { slots[slot] = replacement }
            if let reason = ValueRules.violation(of: value), layout.names[slot] < (refused?.name ?? "\u{10FFFF}") {
                refused = (layout.names[slot], reason)
            }
        }
        if let refused {  // the first property by name, so every backend names the same one
            throw StrataError(
                .validationFailed, entity: entity.name, recordID: id, property: refused.name, refused.reason)
        }
        return Record(entity: entity.name, id: id, version: 0, layout: layout, slots: slots)
    }

    func touch(_ entity: String, _ relationship: RelationshipDescription, _ owner: RecordID) {
        if relationship.minCount != nil || relationship.maxCount != nil {
            touchedMemberships.insert(LinkKey(entity: entity, relationship: relationship.name, owner: owner))
        }
        if schema.hasDerivedAttributes, schema.entity(entity)?.countedRelationships[relationship.name] != nil {
            countedMemberships.insert(LinkKey(entity: entity, relationship: relationship.name, owner: owner))
        }
    }
}
