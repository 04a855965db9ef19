import Foundation

/// What a context knows about the records it read and changed.
extension ModelContext {
    // MARK: Pending changes

    /// Whether anything is waiting to be saved.
    public var hasChanges: Bool { tracker.hasChanges }

    /// What is waiting to be saved.
    public var pendingChanges: ContextChanges { tracker.pendingChanges }

    /// Drops every pending change; registered records go back to the state last read. Empties the
    /// undo and redo stacks, as Core Data's `rollback()` does.
    public func rollback() {
        defer { signalChange() }
        tracker.rollback()
        undoStacks.removeAll()
    }

    /// How many records this context is tracking (read or changed).
    public var registeredCount: Int { tracker.count }

    // MARK: Internals

    /// Wakes this context's observations (`observe(_:)`): its pending changes changed.
    func signalChange() {
        for signal in changeSignals.values { signal.yield() }
    }

    func addChangeSignal(_ id: UUID, _ signal: AsyncStream<Void>.Continuation) { changeSignals[id] = signal }

    func removeChangeSignal(_ id: UUID) { changeSignals[id] = nil }

    /// The tracked state of a record, reading it from the store when this context has not yet.
    func trackedEntry(_ key: RecordKey) async throws -> Tracked {
        _ = try store.schema.requireEntity(key.entity)
        if let entry = tracker[key] { return entry }
        guard let record = try await readStore({ reader, _ in try reader.record(key.entity, id: key.id) }) else {
            throw StrataError(.notFound, entity: key.entity, recordID: key.id, "record does not exist")
        }
        if let entry = tracker[key] { return entry }
        tracker.register(record)
        return tracker[key] ?? Tracked(base: record, current: record, changed: [], revision: 0)
    }
}
