import CoreMetrics
import Synchronization
import Logging

extension ModelContext {
    /// What one save wrote, read back inside its write transaction.
    private struct SaveOutcome: Sendable {
        var token: HistoryToken?
        var conflicts: [MergeConflict]
        /// The stored state, after the save, of every record the context had pending (`nil`: gone).
        var records: [RecordKey: Record?]
        var refresh: RefreshRequest.Found?
    }

    /// Saves every pending change in one atomic backend transaction: conflicts are detected against
    /// the versions this context read and resolved by `mergePolicy`; then delete rules, inverse
    /// upkeep, validation, versioning and history run as for any save. On any error nothing is
    /// written and the pending changes stay, so the caller can refresh, change and save again.
    ///
    /// Saves of one context run one after another; a save that finds nothing pending writes nothing.
    /// A nested context's save moves its changes into its parent instead (see
    /// ``makeChildContext(name:author:mergePolicy:)``).
    @discardableResult
    public func save() async throws -> ContextSaveResult {
        if let parent { return try await save(into: parent) }
        await beginSave()
        defer { endSave() }
        tracker.compactChangeOrder()
        var revisions: [RecordKey: Int] = [:]
        var records: [ContextChangeSet.RecordChange] = []
        for (key, entry) in tracker.pendingRecords {
            records.append(
                .init(
                    key: key, base: entry.base, current: entry.current, changed: entry.changed,
                    ifAbsent: entry.insertedIfAbsent))
            revisions[key] = entry.revision
        }
        var membershipRevisions: [LinkKey: Int] = [:]
        var membershipChanges: [ContextChangeSet.MembershipChange] = []
        for (key, membership) in tracker.memberships.entries where membership.base != membership.desired {
            membershipChanges.append(
                .init(
                    owner: key.ownerKey, relationship: key.relationship, base: membership.base,
                    desired: membership.desired))
            membershipRevisions[key] = membership.revision
        }
        let changes = ContextChangeSet(records: records, memberships: membershipChanges)
        guard !changes.isEmpty else {
            tracker.memberships.removeAll()
            return ContextSaveResult(token: nil, conflicts: [])
        }

        let policy = mergePolicy
        let (author, contextName, executor, participants) = (author, name, store.executor, store.localSaveParticipants)
        let request = refreshRequest(force: false)
        // What the delete rules remove beyond these changes, for the undo groups that deleted.
        let expansions = undoStacks.recordsSaves ? SaveExpansions.Collector() : nil
        let outcome = try await store.commit(
            author: author, contextName: contextName, participants: participants + (expansions.map { [$0] } ?? []),
            collectWritten: true,
            stage: { session, _ in
                var merge = ContextMerge(changes, policy: policy, session: session)
                return try merge.stage()
            }
        ) { conflicts, committed, transaction in
            var after: [RecordKey: Record?] = [:]
            var keys = Set(changes.records.map(\.key)).union(changes.memberships.map(\.owner))
            for conflict in conflicts where conflict.kind == .uniqueness {
                keys.insert(RecordKey(entity: conflict.entity, id: conflict.survivingID))
            }
            for key in keys {
                after[key] = try committed.written[key] ?? .some(transaction.record(key.entity, id: key.id))
            }
            let refresh = try request.map { try $0.run(in: transaction, executor: executor, ownSave: committed.token) }
            return SaveOutcome(token: committed.token, conflicts: conflicts, records: after, refresh: refresh)
        }

        savesCommitted += 1
        if let expansions { attachToUndo(expansions.found.withLock { $0 }, changes: changes) }
        for (key, record) in outcome.records {
            let entry = tracker[key]
            if let entry, let revision = revisions[key], entry.revision != revision {
                // Changed again while the save ran: those changes stay pending over the new state.
                tracker.set(
                    key, base: record,
                    current: entry.current.map { current in
                        var updated = current
                        updated.version = record?.version ?? current.version
                        return updated
                    })
                continue
            }
            if let record {
                tracker.track(record)
            } else {
                tracker.forget(key)
            }
        }
        for (key, revision) in membershipRevisions where tracker.memberships[key]?.revision == revision {
            tracker.memberships[key] = nil
            tracker.readMemberships[key] = nil  // saved: the next change starts from the stored state
        }
        tracker.compactChangeOrder()
        if let refresh = outcome.refresh { apply(refresh) }
        if !outcome.conflicts.isEmpty { reportConflicts(outcome.conflicts) }
        return ContextSaveResult(token: outcome.token, conflicts: outcome.conflicts)
    }

    /// Gives each undo group that deleted a stored record what the save's delete rules removed
    /// with it (``SaveExpansions``), so undoing the group restores the whole graph.
    private func attachToUndo(_ expansions: SaveExpansions, changes: ContextChangeSet) {
        var roots: Set<RecordKey> = []
        var pending: [RecordKey: Record?] = [:]
        for change in changes.records {
            pending[change.key] = .some(change.current)
            if change.current == nil, change.base != nil { roots.insert(change.key) }
        }
        guard !roots.isEmpty else { return }
        let found = expansions.restorations(roots: roots, pending: pending, schema: store.schema)
        for root in roots.sorted(by: { $0.entity != $1.entity ? $0.entity < $1.entity : $0.id < $1.id }) {
            if let restoration = found[root] { undoStacks.attach(restoration, deleting: root) }
        }
    }

    func beginSave() async {
        if !saveTurns.tryTake() { await withCheckedContinuation { saveTurns.enqueue($0) } }
    }

    func endSave() { saveTurns.release() }
}

extension ModelContext {
    /// Conflicts the merge policy resolved, through the store's instrumentation: kinds, entities
    /// and a count — never values or record IDs.
    func reportConflicts(_ conflicts: [MergeConflict]) {
        let instrumentation = store.instrumentation
        instrumentation.counter(
            "strata_merge_conflicts_total", store: store.metricsName, [("policy", "\(mergePolicy.name)")]
        )
        .increment(by: conflicts.count)
        instrumentation.logger.info(
            "merge conflicts resolved",
            metadata: [
                "context": "\(name ?? "-")", "policy": "\(mergePolicy.name)", "count": "\(conflicts.count)",
                "entities": "\(Set(conflicts.map(\.entity)).sorted().joined(separator: ","))",
                "kinds": "\(Set(conflicts.map(\.kind.rawValue)).sorted().joined(separator: ","))",
            ])
    }
}
