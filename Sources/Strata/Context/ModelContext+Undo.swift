/// Undo and redo of a context's staged changes, as Core Data's undo manager gives a context.
///
/// Recording is off until ``setUndoEnabled(_:)`` turns it on. Each change call (`insert`, `update`,
/// `delete`, `link`, `unlink`, `setRelated`, `upsert`, `insertIfAbsent`) is one group; changes made
/// inside ``undoGroup(named:_:)`` form one group together. ``undo()`` puts back exactly what the
/// context showed before the group — records (an insert undone is gone, a delete undone is back,
/// with what its delete rules would have touched, since those apply at save), to-many memberships,
/// and with them both sides of every relationship — and ``redo()`` puts the group back. A new change
/// clears the redo stack.
///
/// Saving keeps both stacks, as Core Data does: undoing a saved group stages the states it puts
/// back as new changes, which the next save writes. ``rollback()`` empties them, as Core Data's
/// `rollback()` does, and so does ``removeAllUndoActions()``.
extension ModelContext {
    /// Whether changes are recorded for undo.
    public var isUndoEnabled: Bool { undoStacks.isEnabled }

    /// Turns recording on or off; off empties both stacks.
    public func setUndoEnabled(_ enabled: Bool) {
        undoStacks.isEnabled = enabled
        if !enabled { undoStacks.removeAll() }
    }

    /// How many groups undo keeps (100 by default; 0 keeps every group, as `UndoManager`'s
    /// `levelsOfUndo`); the oldest are dropped first.
    public var undoLevels: Int { undoStacks.levels }

    /// Changes ``undoLevels``; a negative count is taken as 0.
    public func setUndoLevels(_ levels: Int) { undoStacks.levels = max(0, levels) }

    /// Whether ``undo()`` has a group to undo.
    public var canUndo: Bool { !undoStacks.undoStack.isEmpty }

    /// Whether ``redo()`` has a group to redo.
    public var canRedo: Bool { !undoStacks.redoStack.isEmpty }

    /// The name of the group ``undo()`` would undo ("Rename Trip"), when it was given one.
    public var undoActionName: String? { undoStacks.undoStack.last?.name }

    /// The name of the group ``redo()`` would redo.
    public var redoActionName: String? { undoStacks.redoStack.last?.name }

    /// Runs `body`; every change it makes through this context is one undo group, named `name`.
    /// Groups opened inside join this one.
    public func undoGroup<T: Sendable>(named name: String? = nil, _ body: @Sendable (ModelContext) async throws -> T)
        async throws -> T
    {
        undoStacks.open(named: name)
        defer { undoStacks.close() }
        return try await body(self)
    }

    /// Puts back what the context showed before the last group; returns false when there is none.
    /// A failure (a read of the store) leaves the context and both stacks as they were.
    @discardableResult
    public func undo() async throws -> Bool { try await putBack(undoing: true) }

    /// Puts back the last group ``undo()`` undid; returns false when there is none.
    @discardableResult
    public func redo() async throws -> Bool { try await putBack(undoing: false) }

    /// Empties both stacks.
    public func removeAllUndoActions() { undoStacks.removeAll() }

    private func putBack(undoing: Bool) async throws -> Bool {
        guard let group = undoStacks.begin(undoing: undoing) else { return false }
        let savepoint = tracker
        do {
            for (key, state) in group.records.entries { try await restore(key, to: state) }
            for (key, state) in group.memberships.entries { try await restore(key, to: state) }
        } catch {
            tracker = savepoint
            undoStacks.abandon(group, undoing: undoing)
            throw error
        }
        undoStacks.close()
        signalChange()
        return true
    }

    /// Makes the context show `state` for `key` (`nil`: not there), against the record's base.
    private func restore(_ key: RecordKey, to state: Record?) async throws {
        if tracker[key] == nil,
            let stored = try await readStore({ reader, _ in try reader.record(key.entity, id: key.id) })
        {
            if tracker[key] == nil { tracker.register(stored) }
        }
        try await noteMemberships(of: key)
        let entry = tracker[key]
        undoStacks.note(key, entry?.current)
        let base = entry?.base
        guard var state else {
            if base == nil { tracker.forgetInserted(key) } else { tracker.set(key, base: base, current: nil) }
            return
        }
        if let base { state.version = base.version }
        tracker.set(key, base: base, current: state)
    }

    /// Puts a membership's state back, when its owner is in the context's view: a list the context
    /// set is set again; a list its records gave it is given by them again — or, where a save has
    /// changed them since, set to the list it showed.
    private func restore(_ key: LinkKey, to state: ContextUndo.MembershipState) async throws {
        let owner = key.ownerKey
        guard let shown = try await shownList(key) else { return }
        undoStacks.note(key, tracker.memberships[key].map { .set($0.desired) } ?? .derived(shown))
        let list: [RecordID]
        switch state {
        case .set(let wanted):
            list = wanted
        case .derived(let wanted):
            tracker.memberships[key] = nil
            if let entry = tracker[owner] { tracker.set(owner, base: entry.base, current: entry.current) }
            guard try await shownList(key).map({ $0 != wanted }) ?? false else { return }
            list = wanted
        }
        if tracker.memberships[key] == nil {
            let inserted = tracker[owner].map { $0.base == nil } ?? false
            let base = inserted ? [] : tracker.readMemberships[key] ?? shown
            tracker.memberships[key] = Membership(base: base, desired: base, revision: tracker.nextRevision())
        }
        guard var membership = tracker.memberships[key] else { return }
        membership.desired = list
        membership.revision = tracker.nextRevision()
        tracker.memberships[key] = membership
        if let entry = tracker[owner] { tracker.set(owner, base: entry.base, current: entry.current) }
    }

    /// The list a to-many shows in this context now (pending changes on either side included), or
    /// nil when its owner is not there.
    func shownList(_ key: LinkKey) async throws -> [RecordID]? {
        let owner = key.ownerKey
        guard let relationship = store.schema.entity(owner.entity)?.relationship(key.relationship) else { return nil }
        return try await readOverlaid { view, _ in
            guard let record = try view.record(owner.entity, id: owner.id) else { return nil }
            return try view.relatedIDs(of: record, relationship)
        }
    }

    /// Notes the state `key` has before the open group changes it (once per group).
    func noteMembership(_ key: LinkKey) async throws {
        guard undoStacks.needsNote(key) else { return }
        if let entry = tracker.memberships[key] {
            undoStacks.note(key, .set(entry.desired))
        } else if let shown = try await shownList(key) {
            undoStacks.note(key, .derived(shown))
        }
    }

    /// Notes the memberships `owner` holds here before a change that may drop them with it (a
    /// delete of a record inserted here forgets its memberships).
    func noteMemberships(of owner: RecordKey) async throws {
        guard undoStacks.isRecording else { return }
        for (link, _) in tracker.memberships.entries where link.ownerKey == owner { try await noteMembership(link) }
    }
}
