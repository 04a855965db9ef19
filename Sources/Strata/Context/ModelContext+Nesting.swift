/// Nested contexts, as Core Data's child contexts: a scratch pad that reads through its parent's
/// pending changes and saves into the parent, never to the store.
extension ModelContext {
    /// A context nested in this one. It reads the store through this context's pending changes
    /// (and its ancestors', at any depth); its ``save()`` checks its changes as a save would —
    /// delete rules expanded, every rule validated, inserted IDs looked up — against this context's
    /// view, then moves them into this context as pending changes, writing nothing to the store.
    /// This context's save writes everything in one transaction, where its merge policy resolves
    /// conflicts with the store; the child's `mergePolicy` applies only if it is itself saved to a
    /// store, which it never is. Dropping the child without saving leaves this context untouched.
    ///
    /// ```swift
    /// let editor = context.makeChildContext(name: "editor")
    /// try await editor.update(renamed)
    /// try await editor.save()     // into `context`, not the store
    /// try await context.save()    // now to the store
    /// ```
    public nonisolated func makeChildContext(
        name: String? = nil, author: String? = nil, mergePolicy: MergePolicy = .error
    ) -> ModelContext {
        ModelContext(store: store, name: name, author: author ?? self.author, mergePolicy: mergePolicy, parent: self)
    }

    /// The pending changes of every ancestor, outermost first.
    func ancestorOverlays() async throws -> [ContextOverlay] {
        var overlays: [ContextOverlay] = []
        var next = parent
        while let context = next {
            overlays.insert(await context.pendingOverlay(), at: 0)
            next = context.parent
        }
        return overlays
    }

    /// A nested context's save: its changes checked over the parent's view, then moved into the
    /// parent; the child then holds them as its unchanged state.
    func save(into parent: ModelContext) async throws -> ContextSaveResult {
        await beginSave()
        defer { endSave() }
        tracker.compactChangeOrder()
        let pending = tracker.pendingRecords
        let memberships = tracker.memberships.entries.filter { $0.value.base != $0.value.desired }
        guard !pending.isEmpty || !memberships.isEmpty else {
            tracker.memberships.removeAll()
            return ContextSaveResult(token: nil, conflicts: [])
        }
        let records = pending.map { (key: $0.key, base: $0.entry.base, current: $0.entry.current) }
        let lists = memberships.map { (key: $0.key, base: $0.value.base, desired: $0.value.desired) }
        try await check(records, lists)
        try await parent.absorb(records, lists, from: name)
        for (key, entry) in pending where tracker[key]?.revision == entry.revision {
            if let current = entry.current { tracker.track(current) } else { tracker.forget(key) }
        }
        for (key, membership) in memberships where tracker.memberships[key]?.revision == membership.revision {
            tracker.memberships[key] = nil
            tracker.readMemberships[key] = nil
        }
        tracker.compactChangeOrder()
        savesCommitted += 1
        signalChange()
        return ContextSaveResult(token: nil, conflicts: [])
    }

    /// Runs the save pipeline's checks on the changes over the parent's view, writing nothing.
    private func check(
        _ records: [(key: RecordKey, base: Record?, current: Record?)],
        _ lists: [(key: LinkKey, base: [RecordID], desired: [RecordID])]
    ) async throws {
        let executor = store.executor
        let ancestors = try await ancestorOverlays()
        try await store.backend.read { transaction in
            let reader = StoreReader(transaction: transaction, executor: executor)
            try ContextOverlay.nest(ancestors[...], over: reader, executor: executor) { view, viewExecutor in
                let session = SaveSession(overlaying: view.transaction, executor: viewExecutor)
                for (key, base, current) in records {
                    if let current {
                        if base == nil { try session.insert(current) } else { try session.update(current) }
                    } else if try session.workingSet.record(key.entity, id: key.id) != nil {
                        try session.delete(key)
                    }
                }
                for (key, _, desired) in lists {
                    let owner = key.ownerKey
                    guard try session.workingSet.record(owner.entity, id: owner.id) != nil,
                        let relationship = session.schema.entity(owner.entity)?.relationship(key.relationship)
                    else { continue }
                    try session.setRelated(
                        owner, key.relationship, try session.workingSet.existing(desired, of: relationship.destination))
                }
                try session.prepare()
            }
        }
    }

    /// Takes a child's saved changes as pending changes of this context (one undo group here).
    /// A record this context already tracks keeps its base — what this context read from the store
    /// — so conflicts are found against the store when this context saves.
    func absorb(
        _ records: [(key: RecordKey, base: Record?, current: Record?)],
        _ lists: [(key: LinkKey, base: [RecordID], desired: [RecordID])], from child: String?
    ) async throws {
        undoStacks.open(named: child.map { "Save \($0)" })
        defer {
            undoStacks.close()
            signalChange()
        }
        for (key, _, _) in records { try await noteMemberships(of: key) }
        for (key, _, _) in lists { try await noteMembership(key) }
        for (key, childBase, current) in records {
            let entry = tracker[key]
            undoStacks.note(key, entry.map(\.current) ?? childBase)
            let base = entry == nil ? childBase : entry?.base
            if current == nil, entry != nil, base == nil {
                tracker.forgetInserted(key)
                continue
            }
            var value = current
            if let base, value != nil { value?.version = base.version }
            tracker.set(key, base: base, current: value)
        }
        for (key, childBase, desired) in lists {
            let base = tracker.memberships[key]?.base ?? tracker.readMemberships[key] ?? childBase
            tracker.memberships[key] = Membership(base: base, desired: desired, revision: tracker.nextRevision())
            if let entry = tracker[key.ownerKey] {
                tracker.set(key.ownerKey, base: entry.base, current: entry.current)
            }
        }
    }
}
