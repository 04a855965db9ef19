import Foundation

/// The end of the pipeline: write what changed with bumped versions, then the history entry.
extension SaveSession {
    /// The outcome of a committed save.
    package struct Outcome {
        var token: HistoryToken?
        var changes: [HistoryChange]
        /// When asked for: every record written, as stored (`nil` for a delete).
        package var written: [RecordKey: Record?] = [:]
        /// Whether the save ran the app's hooks (not for a load), so its after-commit hooks run.
        var ranHooks = false
    }

    /// The checks before anything is written: inserted IDs against the committed ones, delete
    /// rules expanded, every changed record validated. A nested context's save runs them over its
    /// parent's view without writing.
    func prepare(runningHooks: Bool = false) throws {
        try checkInsertedIDs()
        try expandDeletes()
        if runningHooks { try runBeforeValidationHooks() }
        // A load keeps the derived values it brings, as it keeps versions and timestamps.
        if !loading { try deriveValues() }
        try validate()
        if runningHooks { try runAfterValidationHooks() }
    }

    /// - Parameter participants: Run in order after the records are written and before the
    ///   history entry, in the same transaction (the outbox, when sync is on).
    func commit(
        author: String?, contextName: String?, collectWritten: Bool = false, participants: [any CommitParticipant] = []
    ) throws -> Outcome {
        guard let base = writer else {
            throw StrataError(.storageFailure, "a read-only overlay cannot be committed")
        }
        commitParticipants = participants
        try prepare(runningHooks: !loading && !hooks.isEmpty)
        var written: [RecordKey: Record?] = [:]
        // The record as written per change, kept only when a participant will read it.
        let keepRecords = !participants.isEmpty
        var changedRecords: [Record?] = []

        // A link-list change is a change of its owner — and, for a many-to-many, of every record
        // added or removed, since which side keeps the list is an implementation detail. Each is
        // written with a new version and named in history.
        var linkChanges: [RecordKey: Set<String>] = [:]
        func markChanged(_ entity: String, _ id: RecordID, _ relationship: String) throws {
            let key = RecordKey(entity: entity, id: id)
            guard let record = try workingSet.record(entity, id: id) else { return }
            linkChanges[key, default: []].insert(relationship)
            if !workingSet.hasEntry(key) { try workingSet.stage(record) }
        }
        for key in workingSet.linkOrder {
            guard let entry = workingSet.linkEntries[key], entry.original != entry.current else { continue }
            try markChanged(key.entity, key.owner, key.relationship)
            // A load writes link lists as the source kept them: the other side's records are
            // loaded with their own versions, not changed by it.
            guard !loading, let relationship = schema.entity(key.entity)?.relationship(key.relationship),
                relationship.storage == .links, let inverse = relationship.inverse
            else { continue }
            let before = Set(entry.original)
            let after = Set(entry.current)
            for target in before.symmetricDifference(after).sorted() {
                try markChanged(relationship.destination, target, inverse)
            }
        }

        // Writes are gathered per entity and handed to the backend as sets (one key is never both
        // put and deleted, so their order within the transaction does not matter).
        var writes = EntityWrites()
        // An insert names its non-null properties, in name order: the layout keeps its slots in
        // name order, so no record's names are sorted.
        // Records of one layout with the same null slots share one array of names.
        var namesByShape: [InsertShape: [String]] = [:]
        func insertedNames(_ record: Record) -> [String] {
            let layout = record.layout
            let shape = InsertShape(record)
            if let shape, let names = namesByShape[shape] { return names }
            let names = layout.slotsByName.compactMap { record.slots[$0].isNull ? nil : layout.names[$0] }
            if let shape { namesByShape[shape] = names }
            return names
        }
        // The entity's stamps, looked up once per run of records of one entity.
        var stampsOf: (entity: String, stamps: [(name: String, kind: AutomaticTimestamp)])?
        func stamps(_ entity: String) -> [(name: String, kind: AutomaticTimestamp)] {
            if let stampsOf, stampsOf.entity == entity { return stampsOf.stamps }
            let found = timestamps(of: entity)
            stampsOf = (entity, found)
            return found
        }
        var changes: [HistoryChange] = []
        let now = Date()
        for entry in workingSet.staged {
            let key = entry.key
            switch (entry.original, entry.current) {
            case (nil, nil):
                continue
            case (let original?, nil):
                writes.delete(key.id, of: key.entity)
                if collectWritten { written[key] = .some(nil) }
                changes.append(
                    HistoryChange(
                        kind: .delete, entity: key.entity, id: key.id, changedProperties: [], version: original.version)
                )
                if keepRecords { changedRecords.append(nil) }
            case (nil, var record?):
                record.version = loading ? max(1, record.version) : 1
                stampInserted(&record, stamps(key.entity), at: now)
                writes.put(record, of: key.entity)
                if collectWritten { written[key] = record }
                var names = insertedNames(record)
                if let linked = linkChanges[key], !linked.isEmpty { names = (names + linked).sorted() }
                changes.append(
                    HistoryChange(
                        kind: .insert, entity: key.entity, id: key.id, changedProperties: names, version: record.version
                    ))
                if keepRecords { changedRecords.append(record) }
            case (let original?, var record?):
                var names = record.changedPropertySet(comparedTo: original).union(linkChanges[key] ?? [])
                let entityStamps = stamps(key.entity)
                if !entityStamps.isEmpty {
                    names = stampUpdated(&record, original: original, changed: names, entityStamps, at: now)
                }
                guard !names.isEmpty else { continue }
                record.version = original.version + 1
                writes.put(record, of: key.entity)
                if collectWritten { written[key] = record }
                changes.append(
                    HistoryChange(
                        kind: .update, entity: key.entity, id: key.id, changedProperties: names.sorted(),
                        version: record.version))
                if keepRecords { changedRecords.append(record) }
            }
        }
        for batch in writes.batches {
            if !batch.deletes.isEmpty { try base.delete(batch.entity, ids: batch.deletes) }
            if !batch.puts.isEmpty { try base.put(contentsOf: batch.puts) }
        }
        for key in workingSet.linkOrder {
            guard let entry = workingSet.linkEntries[key], entry.original != entry.current else { continue }
            try base.setLinks(key.entity, relationship: key.relationship, from: key.owner, to: entry.current)
        }
        try updateSearchIndexes(base)
        try updateFileReferences(base)
        guard !changes.isEmpty else { return Outcome(token: nil, changes: []) }
        if keepRecords {
            let commit = CommitInProgress(changes: changes, records: changedRecords, workingSet: workingSet)
            for participant in participants { try participant.participate(in: commit, transaction: base) }
        }
        let token = try HistoryLog.append(changes, author: author, contextName: contextName, to: base)
        return Outcome(token: token, changes: changes, written: written, ranHooks: !loading && !hooks.isEmpty)
    }
}

/// Which slots of an inserted record hold values, for a layout of at most 64 slots: records of
/// one shape name the same properties in history.
struct InsertShape: Hashable {
    let layout: ObjectIdentifier
    let present: UInt64

    init?(_ record: Record) {
        guard record.slots.count <= 64 else { return nil }
        var present: UInt64 = 0
        for (slot, value) in record.slots.enumerated() where !value.isNull { present |= 1 << UInt64(slot) }
        self.layout = ObjectIdentifier(record.layout)
        self.present = present
    }
}

/// A save's writes per entity, in the order entities are first written: a run of records of one
/// entity (the common case) appends without hashing the entity's name per record.
struct EntityWrites {
    struct Batch {
        let entity: String
        var puts: [Record] = []
        var deletes: [RecordID] = []
    }

    private(set) var batches: [Batch] = []
    private var positions: [String: Int] = [:]
    private var last = -1

    mutating func put(_ record: Record, of entity: String) { batches[position(entity)].puts.append(record) }

    mutating func delete(_ id: RecordID, of entity: String) { batches[position(entity)].deletes.append(id) }

    private mutating func position(_ entity: String) -> Int {
        if last >= 0, batches[last].entity == entity { return last }
        if let found = positions[entity] {
            last = found
        } else {
            last = batches.count
            positions[entity] = last
            batches.append(Batch(entity: entity))
        }
        return last
    }
}
