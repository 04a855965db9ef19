/// What a context hands the engine when it saves: its pending changes with the state it read.
struct ContextChangeSet: Sendable {
    struct RecordChange: Sendable {
        var key: RecordKey
        /// As the context read it; `nil` for an insert.
        var base: Record?
        /// As the context wants it; `nil` for a delete.
        var current: Record?
        /// Properties (attributes, to-ones, to-many relationship names) the context changed.
        var changed: Set<String>
        /// An insert staged by `insertIfAbsent` and unchanged since: a stored record with its ID is kept.
        var ifAbsent = false
    }

    struct MembershipChange: Sendable {
        var owner: RecordKey
        var relationship: String
        /// The destinations when the context first changed the relationship.
        var base: [RecordID]
        /// The destinations the context wants.
        var desired: [RecordID]
    }

    var records: [RecordChange]
    var memberships: [MembershipChange]

    var isEmpty: Bool { records.isEmpty && memberships.isEmpty }
}

/// Detects a context's conflicts against the store inside the save's write transaction, resolves
/// them by the merge policy, and stages the result in the save session. The session's commit then
/// runs the usual pipeline (delete rules, inverses, validation, versions, history).
struct ContextMerge {
    let changes: ContextChangeSet
    let policy: MergePolicy
    let session: SaveSession
    var workingSet: WorkingSet { session.workingSet }
    var schema: Schema { session.schema }

    /// Stored state, read once in batches.
    var stored: [RecordKey: Record] = [:]
    /// By index into `changes.memberships`: the stored membership, and whether it moved since the read.
    var storedMemberships: [Int: [RecordID]] = [:]
    var movedMemberships: Set<Int> = []
    /// Indexes into `changes.memberships` by owner.
    private let membershipIndexes: [RecordKey: [Int]]
    var conflicts: [RecordKey: MergeConflict] = [:]
    /// How each conflict is resolved (never `.fail`: those abort the save).
    var decisions: [RecordKey: MergeResolution] = [:]
    /// Records this context inserted that merged into a stored record: new key → surviving ID.
    var redirects: [RecordKey: RecordID] = [:]
    /// `insertIfAbsent` inserts whose ID the store holds now: the stored record stays, unchanged.
    var keptStored: Set<RecordKey> = []
    /// Whether the "store" is a parent context's view (a child's save into it): a record the
    /// parent changed since the child read it conflicts only where both changed the same property
    /// to different values (or one side deleted what the other changed), and to-many changes merge
    /// as additions and removals — versions do not move inside a context.
    let intoParent: Bool

    init(_ changes: ContextChangeSet, policy: MergePolicy, session: SaveSession, intoParent: Bool = false) {
        self.changes = changes
        self.policy = policy
        self.session = session
        self.intoParent = intoParent
        self.membershipIndexes = Dictionary(
            grouping: changes.memberships.indices, by: { changes.memberships[$0].owner })
    }

    /// Stages the resolved changes; returns the conflicts found (all resolved). Throws
    /// `StrataError.Code.mergeConflict` when the policy (or a custom decision) says so.
    mutating func stage() throws -> [MergeConflict] {
        try loadStoredState()
        try findVersionConflicts()
        findInsertsOfStoredIDs()
        try findUniquenessClashes()
        let ordered = changes.records.compactMap { conflicts[$0.key] }
        try decide(ordered)
        try applyRecords()
        try applyMemberships()
        return ordered
    }

    // MARK: Detection

    private mutating func loadStoredState() throws {
        var idsByEntity: [String: [RecordID]] = [:]
        // Inserts too: another save may have inserted the same ID since.
        for change in changes.records where change.base != nil || change.current != nil {
            idsByEntity[change.key.entity, default: []].append(change.key.id)
        }
        for membership in changes.memberships {
            idsByEntity[membership.owner.entity, default: []].append(membership.owner.id)
        }
        for (entity, ids) in idsByEntity.sorted(by: { $0.key < $1.key }) {
            let found = try workingSet.records(entity, ids: ids)
            for id in Set(ids).sorted() {
                let key = RecordKey(entity: entity, id: id)
                // Remembered unchanged, so staging later reads them from memory, not the backend.
                try workingSet.stage(key, found[id], original: .some(found[id]))
                if let record = found[id] { stored[key] = record }
            }
        }
        for (index, membership) in changes.memberships.enumerated() {
            guard let owner = stored[membership.owner],
                let relationship = schema.entity(owner.entity)?.relationship(membership.relationship)
            else { continue }
            let list = try workingSet.relatedIDs(of: owner, relationship)
            storedMemberships[index] = list
            // An unordered membership moved only if its members did.
            if relationship.isOrdered ? list != membership.base : Set(list) != Set(membership.base) {
                movedMemberships.insert(index)
            }
        }
    }

    private mutating func findVersionConflicts() throws {
        for change in changes.records {
            guard let base = change.base else { continue }
            let now = stored[change.key]
            var memberships: [String: MergeConflict.Membership] = [:]
            var moved: [String] = []
            for index in membershipIndexes[change.key] ?? [] {
                let membership = changes.memberships[index]
                memberships[membership.relationship] = .init(
                    base: membership.base, stored: storedMemberships[index] ?? [], context: membership.desired)
                if movedMemberships.contains(index) { moved.append(membership.relationship) }
            }
            let kind: MergeConflict.Kind
            let changedSince = now.map { $0.changedPropertySet(comparedTo: base) } ?? []
            switch (change.current, now) {
            case (nil, nil):
                continue  // deleted on both sides: the intent holds
            case (nil, let now?):
                guard intoParent ? !changedSince.isEmpty : now.version != base.version else { continue }
                kind = .deletedInContext
            case (_?, nil):
                kind = .deletedInStore
            case (let wanted?, let now?):
                if intoParent {
                    guard changedSince.contains(where: { change.changed.contains($0) && wanted[$0] != now[$0] })
                    else { continue }
                } else {
                    guard now.version != base.version || !moved.isEmpty else { continue }
                }
                kind = .updatedInBoth
            }
            let storeChanges = changedSince.union(intoParent ? [] : moved)
            conflicts[change.key] = MergeConflict(
                kind: kind, entity: change.key.entity, id: change.key.id, baseVersion: base.version,
                storedVersion: now?.version,
                base: base, stored: now, context: change.current, contextChanges: change.changed.sorted(),
                storeChanges: storeChanges.sorted(), memberships: memberships, constraint: [])
        }
    }

    /// An insert whose ID the store holds now (inserted by another save since this context looked).
    private mutating func findInsertsOfStoredIDs() {
        for change in changes.records where change.base == nil {
            guard let record = change.current, let now = stored[change.key] else { continue }
            if change.ifAbsent {
                keptStored.insert(change.key)
                continue
            }
            conflicts[change.key] = MergeConflict(
                kind: .insertedInStore, entity: change.key.entity, id: change.key.id, baseVersion: nil,
                storedVersion: now.version, base: nil, stored: now, context: record,
                contextChanges: change.changed.sorted(), storeChanges: [], memberships: [:], constraint: [])
        }
    }

    /// An insert whose unique values a stored record already holds — unless this context deletes
    /// that record or moves it off those values in the same save.
    private mutating func findUniquenessClashes() throws {
        let byKey = Dictionary(changes.records.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        for change in changes.records where change.base == nil && !keptStored.contains(change.key) {
            guard let record = change.current, let entity = schema.entity(record.entity) else { continue }
            constraints: for constraint in entity.uniqueConstraints {
                let tuple = constraint.map { record[$0] }
                if tuple.contains(where: \.isNull) { continue }
                for match in try session.committedRecords(entity.name, holding: tuple, in: constraint)
                where match.id != record.id {
                    if let other = byKey[match.key], other.base != nil {
                        guard let wanted = other.current, constraint.map({ wanted[$0] }) == tuple else { continue }
                    }
                    conflicts[change.key] = MergeConflict(
                        kind: .uniqueness, entity: entity.name, id: record.id, baseVersion: nil,
                        storedVersion: match.version,
                        base: nil, stored: match, context: record, contextChanges: change.changed.sorted(),
                        storeChanges: [],
                        memberships: [:], constraint: constraint)
                    break constraints
                }
            }
        }
    }

    // MARK: Decision

    private mutating func decide(_ found: [MergeConflict]) throws {
        var failed: [MergeConflict] = []
        for conflict in found {
            let key = RecordKey(entity: conflict.entity, id: conflict.id)
            // A fixed policy resolves every conflict as the matching custom decision would.
            let decision: MergeResolution =
                switch policy {
                case .error: .fail
                case .objectTrumpByProperty: .objectTrumpByProperty
                case .storeTrumpByProperty: .storeTrumpByProperty
                case .overwrite: .overwrite
                case .rollback: .rollback
                case .custom(let resolve): try resolve(conflict)
                }
            if decision == .fail {
                failed.append(conflict)
                continue
            }
            decisions[key] = decision
            if conflict.kind == .uniqueness, let survivor = conflict.stored?.id { redirects[key] = survivor }
        }
        guard failed.isEmpty else {
            let summary = failed.prefix(3).map(\.description).joined(separator: "; ")
            var error = StrataError(
                .mergeConflict, entity: failed[0].entity, recordID: failed[0].id, count: failed.count,
                "\(failed.count) conflict(s) under the \(policy.name) merge policy: \(summary)"
                    + (failed.count > 3 ? "; …" : "")
            )
            error.conflicts = failed
            throw error
        }
    }
}
