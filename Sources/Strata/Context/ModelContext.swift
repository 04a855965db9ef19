/// A unit of work over a ``Store``: fetch models, change them, then ``save()`` everything at once —
/// atomically, through the same engine as every other save (delete rules, inverses, validation,
/// history), with conflicts against other writers detected by record version and resolved by the
/// context's ``MergePolicy``.
///
/// ```swift
/// let context = store.makeContext(name: "editor", mergePolicy: .objectTrumpByProperty)
/// guard var trip = try await context.fetch(Trip.self, id: tripID) else { return }
/// trip.name = "Lisbon 2027"
/// try await context.update(trip)
/// try await context.save()
/// ```
///
/// A context is an actor: share it between tasks freely. It remembers the version of every record
/// it reads; its fetches see its own pending changes; records it has not changed take the store's
/// new values when others commit (see ``automaticallyMergesChanges`` and ``refreshes``).
///
/// Writes made without a context (``Repository``, ``Store/transaction(author:contextName:_:)``)
/// are last-writer-wins: they have no read to compare against.
public actor ModelContext {
    /// What the context knows about one record.
    struct Tracked {
        /// As last read from the store; `nil` for a record this context inserted.
        var base: Record?
        /// As this context sees it; `nil` once deleted here.
        var current: Record?
        /// Properties changed here, relative to `base`.
        var changed: Set<String>
        /// Bumped on every change here, so a save can tell what changed while it ran.
        var revision: Int

        var isPending: Bool { base == nil || current == nil || !changed.isEmpty }
    }

    struct MembershipKey: Hashable {
        var owner: RecordKey
        var relationship: String
    }

    struct Membership {
        var base: [RecordID]
        var desired: [RecordID]
        var revision: Int
    }

    /// The store this context reads from and saves to.
    public nonisolated let store: Store
    /// Recorded as the context name of this context's history transactions.
    public nonisolated let name: String?
    /// Recorded as the author of this context's history transactions.
    public nonisolated let author: String?
    /// How conflicts are resolved at save.
    public var mergePolicy: MergePolicy
    /// When `true` (the default), every fetch and save first brings the records this context has
    /// not changed up to date with what others committed since it last looked.
    public var automaticallyMergesChanges = true
    /// What the latest merge of others' changes did; see also ``refreshes``.
    public internal(set) var lastRefresh: ContextRefresh?
    /// Every non-empty merge of others' changes into this context, as it happens.
    public nonisolated let refreshes: AsyncStream<ContextRefresh>

    var tracked: [RecordKey: Tracked] = [:]
    /// Keys in the order they were first changed (the order they are saved). May hold keys whose
    /// changes were undone; `tracked[key].isPending` is the truth.
    var changeOrder: [RecordKey] = []
    var changeOrderKeys: Set<RecordKey> = []
    var memberships: [MembershipKey: Membership] = [:]
    /// Stored memberships as this context last read them (``related(_:of:)``), the base a later
    /// change of the membership is compared with at save.
    var readMemberships: [MembershipKey: [RecordID]] = [:]
    var membershipOrder: [MembershipKey] = []
    /// The history position this context has caught up with.
    var lastSeenToken: HistoryToken?
    var hasSeenStore = false
    var revisionCounter = 0
    var saveTurns = TurnTaking()
    let refreshContinuation: AsyncStream<ContextRefresh>.Continuation

    init(store: Store, name: String?, author: String?, mergePolicy: MergePolicy) {
        self.store = store
        self.name = name
        self.author = author
        self.mergePolicy = mergePolicy
        (refreshes, refreshContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    deinit { refreshContinuation.finish() }

    /// Changes ``mergePolicy``.
    public func setMergePolicy(_ policy: MergePolicy) { mergePolicy = policy }

    /// Turns ``automaticallyMergesChanges`` on or off.
    public func setAutomaticallyMergesChanges(_ value: Bool) { automaticallyMergesChanges = value }

    // MARK: Reading

    /// The model with this ID as this context sees it (its own pending changes included), or `nil`.
    public func fetch<M: PersistentModel>(_ type: M.Type, id: M.ID) async throws -> M? {
        let key = RecordKey(entity: M.entityName, id: id.recordID)
        _ = try store.schema.requireEntity(M.entityName)
        if let entry = tracked[key], entry.isPending {
            return try entry.current.map(M.init(record:))
        }
        let record = try await readStore { reader, _ in try reader.record(key.entity, id: key.id) }
        if let record { register(record) } else { forget(key) }
        return try (tracked[key]?.current ?? record).map(M.init(record:))
    }

    /// The models a query matches, with this context's pending inserts, updates and deletes applied.
    public func fetch<M: PersistentModel>(_ query: Query<M> = .all) async throws -> [M] {
        let plan = try query.plan()
        return try models(try await readOverlaid { view, executor in try executor.fetch(plan, in: view) })
    }

    /// How many models a query matches, pending changes included.
    public func count<M: PersistentModel>(_ query: Query<M> = .all) async throws -> Int {
        let plan = try query.plan()
        return try await readOverlaid { view, executor in try executor.count(plan, in: view) }
    }

    /// The destinations of a to-many of one record, pending changes included.
    ///
    /// The stored membership read here is remembered: if the store changes it before this context
    /// changes it and saves, that is a conflict for the merge policy, as for a changed attribute.
    public func related<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>, of id: M.ID) async throws -> [D] {
        let owner = RecordKey(entity: M.entityName, id: id.recordID)
        let key = MembershipKey(owner: owner, relationship: relationship.name)
        let overlay = pendingOverlay()
        let (stored, records) = try await readStore { reader, executor in
            guard let description = reader.schema.entity(owner.entity)?.relationship(relationship.name) else { return ([RecordID]?.none, [Record]()) }
            let stored = try reader.transaction.record(owner.entity, id: owner.id).map { try reader.transaction.relatedIDs(of: $0, description) }
            let records = try overlay.view(over: reader, executor: executor) { view, _ in
                guard let record = try view.record(owner.entity, id: owner.id) else { return [Record]() }
                return try view.relatedRecords(of: record, description)
            }
            return (stored, records)
        }
        if memberships[key] == nil { readMemberships[key] = stored }
        return try models(records)
    }

    /// Registers records read through the overlay and maps them as this context sees them.
    private func models<M: PersistentModel>(_ records: [Record]) throws -> [M] {
        for record in records { register(record) }
        return try records.map { try M(record: tracked[$0.key]?.current ?? $0) }
    }

    // MARK: Changing

    /// Stages a new model. An ID this context already holds is ``StrataError/Code/duplicateID``;
    /// one the store holds is found at save.
    public func insert<M: PersistentModel>(_ model: M) throws {
        let record = try model.record()
        _ = try store.schema.requireEntity(record.entity)
        if let entry = tracked[record.key], entry.current != nil || entry.base == nil {
            throw StrataError(.duplicateID, entity: record.entity, recordID: record.id, "this context already holds a record with this ID")
        }
        // Deleted here and inserted again, it replaces the stored record.
        setTracked(record.key, base: tracked[record.key]?.base, current: record)
    }

    /// Stages new values for a model. A record this context has not read is read first, so its
    /// version is known; one that does not exist (or that this context deleted) is ``StrataError/Code/notFound``.
    public func update<M: PersistentModel>(_ model: M) async throws {
        let record = try model.record()
        let entry = try await trackedEntry(record.key)
        guard let current = entry.current else {
            throw StrataError(.notFound, entity: record.entity, recordID: record.id, "cannot update a record that was deleted")
        }
        var updated = record
        updated.version = current.version
        setTracked(record.key, base: entry.base, current: updated)
    }

    /// Stages a delete; delete rules apply when the context saves.
    public func delete<M: PersistentModel>(_ model: M) async throws {
        try await delete(M.self, id: model.id)
    }

    /// Stages a delete by ID; delete rules apply when the context saves.
    public func delete<M: PersistentModel>(_ type: M.Type, id: M.ID) async throws {
        let key = RecordKey(entity: M.entityName, id: id.recordID)
        let entry = try await trackedEntry(key)
        guard entry.current != nil else { return }
        if entry.base == nil {
            // Never saved: forgetting it is the whole delete.
            forget(key)
            for membership in membershipOrder where membership.owner == key { memberships[membership] = nil }
            membershipOrder.removeAll { $0.owner == key }
            return
        }
        setTracked(key, base: entry.base, current: nil)
    }

    /// Stages adding `destination` to a to-many of `source`.
    public func link<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>, from source: M.ID, to destination: D.ID) async throws {
        try await changeMembership(M.entityName, source.recordID, relationship.name) { list in
            if !list.contains(destination.recordID) { list.append(destination.recordID) }
        }
    }

    /// Stages removing `destination` from a to-many of `source`.
    public func unlink<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>, from source: M.ID, to destination: D.ID) async throws {
        try await changeMembership(M.entityName, source.recordID, relationship.name) { list in
            list.removeAll { $0 == destination.recordID }
        }
    }

    /// Stages making a to-many of `source` hold exactly `destinations` (in order, when ordered).
    public func setRelated<M: PersistentModel, D: PersistentModel>(_ relationship: ToMany<M, D>, of source: M.ID, to destinations: [D.ID]) async throws {
        var seen: Set<RecordID> = []
        let wanted = destinations.map(\.recordID).filter { seen.insert($0).inserted }
        try await changeMembership(M.entityName, source.recordID, relationship.name) { $0 = wanted }
    }

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
            changes.updated[key.owner, default: []].append(key.relationship)
        }
        for key in changes.updated.keys { changes.updated[key] = Array(Set(changes.updated[key] ?? [])).sorted() }
        return changes
    }

    /// Drops every pending change; registered records go back to the state last read.
    public func rollback() {
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

    func nextRevision() -> Int {
        revisionCounter += 1
        return revisionCounter
    }

    /// Records the context's new view of a record and which properties now differ from the base.
    func setTracked(_ key: RecordKey, base: Record?, current: Record?) {
        var changed: Set<String> = []
        if let base, let current { changed = current.changedPropertySet(comparedTo: base) }
        for membership in membershipOrder where membership.owner == key {
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

    private func changeMembership(_ entity: String, _ owner: RecordID, _ name: String, _ change: (inout [RecordID]) -> Void) async throws {
        let ownerKey = RecordKey(entity: entity, id: owner)
        guard let relationship = try store.schema.requireEntity(entity).relationship(name), !relationship.isToOne else {
            throw StrataError(.unknownProperty, entity: entity, recordID: owner, property: name, "\(name) is not a to-many relationship of \(entity)")
        }
        let entry = try await trackedEntry(ownerKey)
        guard entry.current != nil else {
            throw StrataError(.notFound, entity: entity, recordID: owner, "cannot change a relationship of a deleted record")
        }
        let key = MembershipKey(owner: ownerKey, relationship: name)
        if memberships[key] == nil, entry.base != nil, let read = readMemberships[key] {
            // Read before: the change is made against what was read, whatever the store did since.
            memberships[key] = Membership(base: read, desired: read, revision: nextRevision())
            membershipOrder.append(key)
        }
        if memberships[key] == nil {
            // A record inserted here has no stored membership to start from.
            let list: [RecordID] = entry.base == nil ? [] : try await readOverlaid { view, _ in
                guard let record = try view.record(entity, id: owner) else { return [] }
                return try view.relatedIDs(of: record, relationship)
            }
            if memberships[key] == nil {
                memberships[key] = Membership(base: list, desired: list, revision: nextRevision())
                membershipOrder.append(key)
            }
        }
        guard var membership = memberships[key] else { return }
        change(&membership.desired)
        membership.revision = nextRevision()
        memberships[key] = membership
        if let current = tracked[ownerKey] { setTracked(ownerKey, base: current.base, current: current.current) }
    }

    /// Runs `body` in one read transaction, after catching up with others' commits in the same
    /// snapshot (when ``automaticallyMergesChanges`` is on).
    func readStore<T: Sendable>(_ body: @escaping @Sendable (StoreReader, QueryExecutor) throws -> T) async throws -> T {
        let request = refreshRequest(force: false)
        let executor = store.executor
        let (found, value) = try await store.backend.read { transaction in
            let found = try request.map { try $0.run(in: transaction, executor: executor) }
            return (found, try body(StoreReader(transaction: transaction, executor: executor), executor))
        }
        if let found { apply(found) }
        return value
    }

    /// Runs `body` over the committed state with this context's pending changes laid on top.
    func readOverlaid<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction, QueryExecutor) throws -> T) async throws -> T {
        let overlay = pendingOverlay()
        return try await readStore { reader, executor in try overlay.view(over: reader, executor: executor, body) }
    }

    func pendingOverlay() -> ContextOverlay {
        ContextOverlay(
            records: changeOrder.compactMap { key in tracked[key].flatMap { $0.isPending ? (key, $0.current) : nil } },
            memberships: membershipOrder.compactMap { key in
                memberships[key].map { ContextOverlay.MembershipState(owner: key.owner, relationship: key.relationship, desired: $0.desired) }
            })
    }
}

extension Store {
    /// A new unit of work over this store.
    ///
    /// - Parameters:
    ///   - name: Recorded in history as the context name of its saves.
    ///   - author: Recorded in history as the author of its saves.
    ///   - mergePolicy: How conflicts are resolved at save; ``MergePolicy/error`` by default.
    public func makeContext(name: String? = nil, author: String? = nil, mergePolicy: MergePolicy = .error) -> ModelContext {
        ModelContext(store: self, name: name, author: author, mergePolicy: mergePolicy)
    }
}

/// A context's pending changes, as ``ModelContext/pendingChanges`` reports them.
public struct ContextChanges: Sendable, Hashable {
    /// Records inserted here, in order.
    public var inserted: [RecordKey] = []
    /// Records updated here, with the properties (and to-many relationships) changed.
    public var updated: [RecordKey: [String]] = [:]
    /// Records deleted here, in order.
    public var deleted: [RecordKey] = []

    /// Whether nothing is pending.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What a context's save did.
public struct ContextSaveResult: Sendable {
    /// The history token of the save; `nil` when nothing was written.
    public var token: HistoryToken?
    /// The conflicts found and resolved by the merge policy (empty when there were none).
    public var conflicts: [MergeConflict]
}
