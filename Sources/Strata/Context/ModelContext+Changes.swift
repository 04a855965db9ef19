/// Staging changes in a context; nothing reaches the store before ``ModelContext/save()``.
extension ModelContext {
    // MARK: Changing

    /// Stages a new model. An ID this context already holds is `StrataError.Code.duplicateID`;
    /// one the store holds is found at save. Async like every change a context stages (one rule:
    /// a context's reads and changes are `async`, its bookkeeping — `hasChanges`, `rollback()` — is not).
    public func insert<M: PersistentModel>(_ model: M) async throws {
        undoStacks.open()
        defer {
            undoStacks.close()
            signalChange()
        }
        let record = try model.record()
        _ = try store.schema.requireEntity(record.entity)
        if let entry = tracker[record.key], entry.current != nil || entry.base == nil {
            throw StrataError(
                .duplicateID, entity: record.entity, recordID: record.id,
                "this context already holds a record with this ID")
        }
        // Deleted here and inserted again, it replaces the stored record.
        undoStacks.note(record.key, tracker[record.key]?.current)
        tracker.set(record.key, base: tracker[record.key]?.base, current: record)
    }

    /// Stages the model as an insert, or as new values when the context or the store holds its ID.
    /// Another save inserting the ID before this context saves is resolved by the merge policy
    /// (`MergeConflict.Kind.insertedInStore`).
    public func upsert<M: PersistentModel>(_ model: M) async throws {
        undoStacks.open()
        defer { undoStacks.close() }
        if try await holds(M.self, id: model.id) { try await update(model) } else { try await insert(model) }
    }

    /// Stages the model as an insert unless the context or the store holds its ID; returns whether it
    /// staged it. The intent holds at save, as `INSERT … ON CONFLICT DO NOTHING` does: when another
    /// save inserted the ID before this context saves, the stored record is kept (and this context
    /// then holds it) — no conflict, whatever the merge policy — so concurrent units of work that
    /// get-or-create one record all succeed. A record changed here after `insertIfAbsent` is an
    /// ordinary insert again, whose clash with a stored ID the merge policy resolves
    /// (`MergeConflict.Kind.insertedInStore`).
    @discardableResult
    public func insertIfAbsent<M: PersistentModel>(_ model: M) async throws -> Bool {
        if try await holds(M.self, id: model.id) { return false }
        try await insert(model)
        tracker.markInsertedIfAbsent(RecordKey(entity: M.entityName, id: model.id.recordID))
        return true
    }

    /// Whether the context's view (its changes over the store) has a record with this ID.
    private func holds<M: PersistentModel>(_ type: M.Type, id: M.ID) async throws -> Bool {
        let key = RecordKey(entity: M.entityName, id: id.recordID)
        if let entry = tracker[key] { return entry.current != nil }
        return try await fetch(M.self, id: id) != nil
    }

    /// Stages new values for a model. A record this context has not read is read first, so its
    /// version is known; one that does not exist (or that this context deleted) is `StrataError.Code.notFound`.
    public func update<M: PersistentModel>(_ model: M) async throws {
        undoStacks.open()
        defer {
            undoStacks.close()
            signalChange()
        }
        let record = try model.record()
        let entry = try await trackedEntry(record.key)
        guard let current = entry.current else {
            throw StrataError(
                .notFound, entity: record.entity, recordID: record.id, "cannot update a record that was deleted")
        }
        var updated = record
        updated.version = current.version
        undoStacks.note(record.key, current)
        tracker.set(record.key, base: entry.base, current: updated)
    }

    /// Stages a delete; delete rules apply when the context saves.
    public func delete<M: PersistentModel>(_ model: M) async throws {
        try await delete(M.self, id: model.id)
    }

    /// Stages a delete by ID; delete rules apply when the context saves.
    public func delete<M: PersistentModel>(_ type: M.Type, id: M.ID) async throws {
        undoStacks.open()
        defer {
            undoStacks.close()
            signalChange()
        }
        let key = RecordKey(entity: M.entityName, id: id.recordID)
        let entry = try await trackedEntry(key)
        guard entry.current != nil else { return }
        try await noteMemberships(of: key)
        undoStacks.note(key, entry.current)
        if entry.base == nil {
            // Never saved: forgetting it is the whole delete.
            tracker.forgetInserted(key)
            return
        }
        tracker.set(key, base: entry.base, current: nil)
    }

    /// Stages adding `destination` to a to-many of `source`.
    public func link<M: PersistentModel, D: PersistentModel>(
        _ relationship: ToMany<M, D>, from source: M.ID, to destination: D.ID
    ) async throws {
        undoStacks.open()
        defer {
            undoStacks.close()
            signalChange()
        }
        try await changeMembership(M.entityName, source.recordID, relationship.name) { list in
            if !list.contains(destination.recordID) { list.append(destination.recordID) }
        }
    }

    /// Stages removing `destination` from a to-many of `source`.
    public func unlink<M: PersistentModel, D: PersistentModel>(
        _ relationship: ToMany<M, D>, from source: M.ID, to destination: D.ID
    ) async throws {
        undoStacks.open()
        defer {
            undoStacks.close()
            signalChange()
        }
        try await changeMembership(M.entityName, source.recordID, relationship.name) { list in
            list.removeAll { $0 == destination.recordID }
        }
    }

    /// Stages making a to-many of `source` hold exactly `destinations` (in order, when ordered).
    public func setRelated<M: PersistentModel, D: PersistentModel>(
        _ relationship: ToMany<M, D>, of source: M.ID, to destinations: [D.ID]
    ) async throws {
        undoStacks.open()
        defer {
            undoStacks.close()
            signalChange()
        }
        var seen: Set<RecordID> = []
        let wanted = destinations.map(\.recordID).filter { seen.insert($0).inserted }
        try await changeMembership(M.entityName, source.recordID, relationship.name) { $0 = wanted }
    }

    private func changeMembership(
        _ entity: String, _ owner: RecordID, _ name: String, _ change: (inout [RecordID]) -> Void
    ) async throws {
        let ownerKey = RecordKey(entity: entity, id: owner)
        guard let relationship = try store.schema.requireEntity(entity).relationship(name), !relationship.isToOne else {
            throw StrataError(
                .unknownProperty, entity: entity, recordID: owner, property: name,
                "\(name) is not a to-many relationship of \(entity)")
        }
        let entry = try await trackedEntry(ownerKey)
        guard entry.current != nil else {
            throw StrataError(
                .notFound, entity: entity, recordID: owner, "cannot change a relationship of a deleted record")
        }
        let key = LinkKey(ownerKey, name)
        try await noteMembership(key)
        if tracker.memberships[key] == nil, entry.base != nil, let read = tracker.readMemberships[key] {
            // Read before: the change is made against what was read, whatever the store did since.
            tracker.memberships[key] = Membership(base: read, desired: read, revision: tracker.nextRevision())
        }
        if tracker.memberships[key] == nil {
            // A record inserted here has no stored membership to start from.
            let list: [RecordID] =
                entry.base == nil
                ? []
                : try await readOverlaid { view, _ in
                    guard let record = try view.record(entity, id: owner) else { return [] }
                    return try view.relatedIDs(of: record, relationship)
                }
            if tracker.memberships[key] == nil {
                tracker.memberships[key] = Membership(base: list, desired: list, revision: tracker.nextRevision())
            }
        }
        guard var membership = tracker.memberships[key] else { return }
        change(&membership.desired)
        membership.revision = tracker.nextRevision()
        tracker.memberships[key] = membership
        if let current = tracker[ownerKey] { tracker.set(ownerKey, base: current.base, current: current.current) }
    }
}
