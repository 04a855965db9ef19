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

    /// A nested context's save: its changes merged into the parent's view as a save merges into
    /// the store (property by property; a change the parent took since this child read the record,
    /// from a sibling or itself, conflicts only where both changed the same property, resolved by
    /// the parent's merge policy), checked and expanded there — delete rules, nullifications,
    /// inverses, counts — and every record and list that changed moved into the parent. The child
    /// then holds what the parent holds as its unchanged state.
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
        let changes = ContextChangeSet(
            records: pending.map {
                .init(
                    key: $0.key, base: $0.entry.base, current: $0.entry.current, changed: $0.entry.changed,
                    ifAbsent: $0.entry.insertedIfAbsent)
            },
            memberships: memberships.map {
                .init(
                    owner: $0.key.ownerKey, relationship: $0.key.relationship, base: $0.value.base,
                    desired: $0.value.desired)
            })
        let merged = try await parent.absorb(changes, from: name)
        for (key, entry) in pending where tracker[key]?.revision == entry.revision {
            if let current = merged.records[key] ?? entry.current {
                tracker.track(current)
            } else {
                tracker.forget(key)
            }
        }
        for (key, membership) in memberships where tracker.memberships[key]?.revision == membership.revision {
            tracker.memberships[key] = nil
            tracker.readMemberships[key] = nil
        }
        tracker.compactChangeOrder()
        savesCommitted += 1
        signalChange()
        return ContextSaveResult(token: nil, conflicts: merged.conflicts)
    }
}

/// What a child's save became in its parent: every record and list the merge and the save's
/// expansion changed, as the parent's view had them and as they are now.
struct ChildMerge: Sendable {
    var records: [(key: RecordKey, before: Record?, after: Record?)] = []
    var lists: [(key: LinkKey, before: [RecordID], after: [RecordID])] = []
    var conflicts: [MergeConflict] = []

    /// The merge in a session over the parent's view: the child's changes resolved by `policy`,
    /// then the save's checks and expansion, writing nothing.
    static func run(
        _ changes: ContextChangeSet, policy: MergePolicy, over view: any StorageReadTransaction, executor: QueryExecutor
    ) throws -> ChildMerge {
        let session = SaveSession(overlaying: view, executor: executor)
        var merge = ContextMerge(changes, policy: policy, session: session, intoParent: true)
        var result = ChildMerge()
        result.conflicts = try merge.stage()
        try session.prepare()
        let workingSet = session.workingSet
        for entry in workingSet.staged {
            switch (entry.original, entry.current) {
            case (nil, nil): continue
            case (let before?, let after?) where !after.differs(from: before): continue
            default: result.records.append((entry.key, entry.original, entry.current))
            }
        }
        for key in workingSet.linkOrder {
            guard let lists = workingSet.linkEntries[key], lists.original != lists.current else { continue }
            result.lists.append((key, lists.original, lists.current))
        }
        return result
    }
}

extension ModelContext {
    /// Merges a child's saved changes into this context as pending changes (one undo group here)
    /// and returns what they became. A record this context already tracks keeps its base — what
    /// this context read from the store — so conflicts with the store are found when it saves.
    func absorb(_ changes: ContextChangeSet, from child: String?) async throws -> (
        records: [RecordKey: Record?], conflicts: [MergeConflict]
    ) {
        undoStacks.open(named: child.map { "Save \($0)" })
        defer {
            undoStacks.close()
            signalChange()
        }
        // Merged over this context's view; merged again if this context changed while it read
        // (a sibling's save landing meanwhile), a few times at most.
        for _ in 0..<Self.mergeAttempts {
            let mark = tracker.revisionMark
            let merged = try await mergeChild(changes, from: child)
            for (key, _, _) in merged.records { try await noteMemberships(of: key) }
            for (key, _, _) in merged.lists { try await noteMembership(key) }
            guard tracker.revisionMark == mark else { continue }
            take(merged)
            var records: [RecordKey: Record?] = [:]
            for (key, _, after) in merged.records { records[key] = after }
            return (records, merged.conflicts)
        }
        throw StrataError(
            .mergeConflict,
            "\(name.map { "context \($0)" } ?? "the parent") changed \(Self.mergeAttempts) times while "
                + "\(child.map { "context \($0)" } ?? "a child context") saved into it: save again")
    }

    /// How often a child's save merges again when its parent changed while the merge read.
    static let mergeAttempts = 8

    private func mergeChild(_ changes: ContextChangeSet, from child: String?) async throws -> ChildMerge {
        let overlays = try await ancestorOverlays() + [pendingOverlay()]
        let (executor, policy) = (store.executor, mergePolicy)
        do {
            return try await store.backend.read { transaction in
                let reader = StoreReader(transaction: transaction, executor: executor)
                return try ContextOverlay.nest(overlays[...], over: reader, executor: executor) { view, viewExecutor in
                    try ChildMerge.run(changes, policy: policy, over: view.transaction, executor: viewExecutor)
                }
            }
        } catch var error as StrataError where error.code == .mergeConflict {
            error.message =
                "saving \(child.map { "context \($0)" } ?? "a child context") into "
                + "\(name.map { "context \($0)" } ?? "its parent"): \(error.message)"
            throw error
        }
    }

    /// Takes a merge's results as this context's pending changes.
    private func take(_ merged: ChildMerge) {
        for (key, before, after) in merged.records {
            let entry = tracker[key]
            undoStacks.note(key, entry.map(\.current) ?? before)
            let base = entry == nil ? before : entry?.base
            if after == nil, entry != nil, base == nil {
                tracker.forgetInserted(key)
                continue
            }
            var value = after
            if let base, value != nil { value?.version = base.version }
            tracker.set(key, base: base, current: value)
        }
        for (key, before, after) in merged.lists {
            let base = tracker.memberships[key]?.base ?? tracker.readMemberships[key] ?? before
            tracker.memberships[key] = Membership(base: base, desired: after, revision: tracker.nextRevision())
            if let entry = tracker[key.ownerKey] {
                tracker.set(key.ownerKey, base: entry.base, current: entry.current)
            }
        }
    }
}
