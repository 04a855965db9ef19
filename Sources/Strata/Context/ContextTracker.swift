/// What a context knows about the records it read and changed, and the to-many memberships it
/// changed — the state a save, a refresh, a rollback and the overlay of pending changes read —
/// kept in one value with its rules: a record's changed properties are recomputed from its base on
/// every change, its pending memberships count as changes of it, and every change takes a new
/// revision so a save can tell what changed while it ran.
struct ContextTracker {
    typealias Tracked = ModelContext.Tracked
    typealias Membership = ModelContext.Membership

    /// Every record the context read or changed.
    private(set) var records: [RecordKey: Tracked] = [:]
    /// Keys in the order they were first changed (the order they are saved). May hold keys whose
    /// changes were undone; `records[key].isPending` is the truth (see ``compactChangeOrder()``).
    private(set) var changeOrder = OrderedKeys<RecordKey>()
    /// Memberships changed here, in the order first changed.
    var memberships = OrderedMap<LinkKey, Membership>()
    /// Stored memberships as the context last read them (`related(_:of:)`), the base a later
    /// change of the membership is compared with at save.
    var readMemberships: [LinkKey: [RecordID]] = [:]
    private var revisionCounter = 0
    /// The last revision given: unchanged while nothing in the context changed.
    var revisionMark: Int { revisionCounter }

    mutating func nextRevision() -> Int {
        revisionCounter += 1
        return revisionCounter
    }

    subscript(key: RecordKey) -> Tracked? { records[key] }

    var count: Int { records.count }

    /// Whether anything is waiting to be saved.
    var hasChanges: Bool {
        changeOrder.contains { records[$0]?.isPending == true }
            || memberships.entries.contains { $0.value.base != $0.value.desired }
    }

    /// The records with pending changes, in save order.
    var pendingRecords: [(key: RecordKey, entry: Tracked)] {
        changeOrder.compactMap { key in records[key].flatMap { $0.isPending ? (key, $0) : nil } }
    }

    /// What is waiting to be saved.
    var pendingChanges: ContextChanges {
        var changes = ContextChanges()
        for (key, entry) in pendingRecords {
            switch (entry.base, entry.current) {
            case (nil, _?): changes.inserted.append(key)
            case (_?, nil): changes.deleted.append(key)
            case (_?, _?): changes.updated[key] = entry.changed.sorted()
            case (nil, nil): continue
            }
        }
        for (key, membership) in memberships.entries where membership.base != membership.desired {
            changes.updated[key.ownerKey, default: []].append(key.relationship)
        }
        for key in changes.updated.keys { changes.updated[key] = Array(Set(changes.updated[key] ?? [])).sorted() }
        return changes
    }

    /// Records the context's new view of a record and which properties now differ from the base.
    mutating func set(_ key: RecordKey, base: Record?, current: Record?) {
        var changed: Set<String> = []
        if let base, let current { changed = current.changedPropertySet(comparedTo: base) }
        for (link, membership) in memberships.entries
        where link.ownerKey == key && membership.base != membership.desired {
            changed.insert(link.relationship)
        }
        var entry = Tracked(base: base, current: current, changed: changed, revision: nextRevision())
        // Kept while the record is what `insertIfAbsent` staged (a membership change re-sets it).
        if let previous = records[key], previous.insertedIfAbsent, base == nil, previous.current == current {
            entry.insertedIfAbsent = true
        }
        records[key] = entry
        if entry.isPending { changeOrder.append(key) }
    }

    /// Marks a record just inserted here as staged by `insertIfAbsent` (see `Tracked.insertedIfAbsent`).
    mutating func markInsertedIfAbsent(_ key: RecordKey) {
        guard records[key]?.base == nil, records[key]?.current != nil else { return }
        records[key]?.insertedIfAbsent = true
    }

    /// Tracks a record as stored, with nothing changed here.
    mutating func track(_ record: Record) {
        records[record.key] = Tracked(base: record, current: record, changed: [], revision: nextRevision())
    }

    mutating func forget(_ key: RecordKey) {
        records[key] = nil
    }

    /// Forgets a record this context inserted and never saved, with its memberships.
    mutating func forgetInserted(_ key: RecordKey) {
        records[key] = nil
        memberships.removeAll { $0.ownerKey == key }
    }

    /// Registers a record read from the store, unless this context has changed it.
    mutating func register(_ record: Record) {
        if let entry = records[record.key] {
            guard !entry.isPending, let base = entry.base, record.version > base.version else { return }
        }
        track(record)
    }

    /// Drops keys that no longer have pending changes from the save order.
    mutating func compactChangeOrder() {
        let records = records
        changeOrder.keep { records[$0]?.isPending == true }
    }

    /// Undoes what changed since `savepoint` was taken (a nested unit of work that threw): records
    /// pending then get their pending state back, records changed only since go back to their base,
    /// and memberships are as they were. Records only read since stay registered.
    mutating func restorePending(to savepoint: ContextTracker) {
        for (key, entry) in pendingRecords where savepoint.records[key]?.isPending != true {
            if let base = entry.base { track(base) } else { records[key] = nil }
        }
        for (key, entry) in savepoint.pendingRecords {
            records[key] = Tracked(
                base: entry.base, current: entry.current, changed: entry.changed, revision: nextRevision(),
                insertedIfAbsent: entry.insertedIfAbsent)
        }
        changeOrder = savepoint.changeOrder
        memberships = savepoint.memberships
        readMemberships = savepoint.readMemberships
    }

    /// Drops every pending change; registered records go back to the state last read.
    mutating func rollback() {
        for (key, entry) in pendingRecords {
            if let base = entry.base { track(base) } else { records[key] = nil }
        }
        changeOrder.removeAll()
        memberships.removeAll()
    }
}
