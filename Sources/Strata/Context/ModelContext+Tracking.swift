import Foundation

/// What a context knows about the records it read and changed.
extension ModelContext {
    // MARK: Pending changes

    /// Whether anything is waiting to be saved.
    public var hasChanges: Bool {
        changeOrder.contains { tracked[$0]?.isPending == true }
            || membershipOrder.contains { memberships[$0].map { $0.base != $0.desired } ?? false }
    }

    /// What is waiting to be saved.
    public var pendingChanges: ContextChanges {
        var changes = ContextChanges()
        for key in changeOrder {
            guard let entry = tracked[key], entry.isPending else { continue }
            switch (entry.base, entry.current) {
            case (nil, _?): changes.inserted.append(key)
            case (_?, nil): changes.deleted.append(key)
            case (_?, _?): changes.updated[key] = entry.changed.sorted()
            case (nil, nil): continue
            }
        }
        for key in membershipOrder {
            guard let membership = memberships[key], membership.base != membership.desired else { continue }
            changes.updated[key.ownerKey, default: []].append(key.relationship)
        }
        for key in changes.updated.keys { changes.updated[key] = Array(Set(changes.updated[key] ?? [])).sorted() }
        return changes
    }

    /// Drops every pending change; registered records go back to the state last read.
    public func rollback() {
        defer { signalChange() }
        for key in changeOrder {
            guard let entry = tracked[key], entry.isPending else { continue }
            if let base = entry.base {
                track(base)
            } else {
                tracked[key] = nil
            }
        }
        changeOrder.removeAll()
        changeOrderKeys.removeAll()
        memberships.removeAll()
        membershipOrder.removeAll()
    }

    /// How many records this context is tracking (read or changed).
    public var registeredCount: Int { tracked.count }

    // MARK: Internals

    /// Wakes this context's observations (`observe(_:)`): its pending changes changed.
    func signalChange() {
        for signal in changeSignals.values { signal.yield() }
    }

    func addChangeSignal(_ id: UUID, _ signal: AsyncStream<Void>.Continuation) { changeSignals[id] = signal }

    func removeChangeSignal(_ id: UUID) { changeSignals[id] = nil }

    func nextRevision() -> Int {
        revisionCounter += 1
        return revisionCounter
    }

    /// Records the context's new view of a record and which properties now differ from the base.
    func setTracked(_ key: RecordKey, base: Record?, current: Record?) {
        var changed: Set<String> = []
        if let base, let current { changed = current.changedPropertySet(comparedTo: base) }
        for membership in membershipOrder where membership.ownerKey == key {
            if let list = memberships[membership], list.base != list.desired { changed.insert(membership.relationship) }
        }
        let entry = Tracked(base: base, current: current, changed: changed, revision: nextRevision())
        tracked[key] = entry
        if entry.isPending && changeOrderKeys.insert(key).inserted { changeOrder.append(key) }
    }

    /// Tracks a record as stored, with nothing changed here.
    func track(_ record: Record) {
        tracked[record.key] = Tracked(base: record, current: record, changed: [], revision: nextRevision())
    }

    func forget(_ key: RecordKey) {
        tracked[key] = nil
    }

    /// Drops keys that no longer have pending changes from the save order.
    func compactChangeOrder() {
        changeOrder = changeOrder.filter { tracked[$0]?.isPending == true }
        changeOrderKeys = Set(changeOrder)
    }

    /// Registers a record read from the store, unless this context has changed it.
    func register(_ record: Record) {
        if let entry = tracked[record.key] {
            guard !entry.isPending, let base = entry.base, record.version > base.version else { return }
        }
        track(record)
    }

    /// The tracked state of a record, reading it from the store when this context has not yet.
    func trackedEntry(_ key: RecordKey) async throws -> Tracked {
        _ = try store.schema.requireEntity(key.entity)
        if let entry = tracked[key] { return entry }
        guard let record = try await readStore({ reader, _ in try reader.record(key.entity, id: key.id) }) else {
            throw StrataError(.notFound, entity: key.entity, recordID: key.id, "record does not exist")
        }
        if let entry = tracked[key] { return entry }
        register(record)
        return tracked[key] ?? Tracked(base: record, current: record, changed: [], revision: 0)
    }
}
