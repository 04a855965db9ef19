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
    /// How one conflict is resolved.
    private enum Decision {
        case objectTrump, storeTrump, overwrite, rollback, use(Record)
    }

    let changes: ContextChangeSet
    let policy: MergePolicy
    let session: SaveSession
    private var workingSet: WorkingSet { session.workingSet }
    private var schema: Schema { session.schema }

    /// Stored state, read once in batches.
    private var stored: [RecordKey: Record] = [:]
    private var storedMemberships: [Int: [RecordID]] = [:]
    private var conflicts: [RecordKey: MergeConflict] = [:]
    private var decisions: [RecordKey: Decision] = [:]
    /// Records this context inserted that merged into a stored record: new key → surviving ID.
    private var redirects: [RecordKey: RecordID] = [:]

    init(_ changes: ContextChangeSet, policy: MergePolicy, session: SaveSession) {
        self.changes = changes
        self.policy = policy
        self.session = session
    }

    /// Stages the resolved changes; returns the conflicts found (all resolved). Throws
    /// ``StrataError/Code/mergeConflict`` when the policy (or a custom decision) says so.
    mutating func stage() throws -> [MergeConflict] {
        try loadStoredState()
        try findVersionConflicts()
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
        for change in changes.records where change.base != nil {
            idsByEntity[change.key.entity, default: []].append(change.key.id)
        }
        for membership in changes.memberships {
            idsByEntity[membership.owner.entity, default: []].append(membership.owner.id)
        }
        for (entity, ids) in idsByEntity.sorted(by: { $0.key < $1.key }) {
            let found = try workingSet.records(entity, ids: ids)
            for id in Set(ids) {
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
            storedMemberships[index] = try workingSet.relatedIDs(of: owner, relationship)
        }
    }

    private func membershipsOf(_ key: RecordKey) -> [(index: Int, change: ContextChangeSet.MembershipChange)] {
        changes.memberships.enumerated().filter { $0.element.owner == key }.map { ($0.offset, $0.element) }
    }

    private mutating func findVersionConflicts() throws {
        for change in changes.records {
            guard let base = change.base else { continue }
            let now = stored[change.key]
            var memberships: [String: MergeConflict.Membership] = [:]
            var movedMemberships: [String] = []
            for (index, membership) in membershipsOf(change.key) {
                let storedList = storedMemberships[index] ?? []
                memberships[membership.relationship] = .init(base: membership.base, stored: storedList, context: membership.desired)
                if Set(storedList) != Set(membership.base) || (storedList != membership.base && isOrdered(membership)) {
                    movedMemberships.append(membership.relationship)
                }
            }
            let kind: MergeConflict.Kind
            switch (change.current, now) {
            case (nil, nil):
                continue  // deleted on both sides: the intent holds
            case (nil, let now?):
                guard now.version != base.version else { continue }
                kind = .deletedInContext
            case (_?, nil):
                kind = .deletedInStore
            case (_?, let now?):
                guard now.version != base.version || !movedMemberships.isEmpty else { continue }
                kind = .updatedInBoth
            }
            let storeChanges = now.map { Set($0.changedProperties(comparedTo: base)).union(movedMemberships) } ?? []
            conflicts[change.key] = MergeConflict(
                kind: kind, entity: change.key.entity, id: change.key.id, baseVersion: base.version, storedVersion: now?.version,
                base: base, stored: now, context: change.current, contextChanges: change.changed.sorted(),
                storeChanges: storeChanges.sorted(), memberships: memberships, constraint: [])
        }
    }

    private func isOrdered(_ membership: ContextChangeSet.MembershipChange) -> Bool {
        schema.entity(membership.owner.entity)?.relationship(membership.relationship)?.isOrdered ?? false
    }

    /// An insert whose unique values a stored record already holds — unless this context deletes
    /// that record or moves it off those values in the same save.
    private mutating func findUniquenessClashes() throws {
        let byKey = Dictionary(changes.records.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
        for change in changes.records where change.base == nil {
            guard let record = change.current, let entity = schema.entity(record.entity) else { continue }
            constraints: for constraint in entity.uniqueConstraints {
                let tuple = constraint.map { record[$0] }
                if tuple.contains(where: \.isNull) { continue }
                let predicate = FilterExpression.and(zip(constraint, tuple).map { .compare($0, .equal, $1, []) })
                for match in try workingSet.executor.fetch(FetchPlan(entity: entity.name, predicate: predicate), in: workingSet.base)
                where match.id != record.id {
                    if let other = byKey[match.key], other.base != nil {
                        guard let wanted = other.current, constraint.map({ wanted[$0] }) == tuple else { continue }
                    }
                    conflicts[change.key] = MergeConflict(
                        kind: .uniqueness, entity: entity.name, id: record.id, baseVersion: nil, storedVersion: match.version,
                        base: nil, stored: match, context: record, contextChanges: change.changed.sorted(), storeChanges: [],
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
            let decision: Decision
            switch policy {
            case .error: failed.append(conflict); continue
            case .objectTrumpByProperty: decision = .objectTrump
            case .storeTrumpByProperty: decision = .storeTrump
            case .overwrite: decision = .overwrite
            case .rollback: decision = .rollback
            case .custom(let resolve):
                switch try resolve(conflict) {
                case .objectTrumpByProperty: decision = .objectTrump
                case .storeTrumpByProperty: decision = .storeTrump
                case .overwrite: decision = .overwrite
                case .rollback: decision = .rollback
                case .use(let record): decision = .use(record)
                case .fail: failed.append(conflict); continue
                }
            }
            decisions[key] = decision
            if conflict.kind == .uniqueness, let survivor = conflict.stored?.id { redirects[key] = survivor }
        }
        guard failed.isEmpty else {
            let summary = failed.prefix(3).map(\.description).joined(separator: "; ")
            var error = StrataError(
                .mergeConflict, entity: failed[0].entity, recordID: failed[0].id, count: failed.count,
                "\(failed.count) conflict(s) under the \(policy.name) merge policy: \(summary)\(failed.count > 3 ? "; …" : "")")
            error.conflicts = failed
            throw error
        }
    }

    // MARK: Staging

    private func redirected(_ id: RecordID, in entity: String) -> RecordID {
        redirects[RecordKey(entity: entity, id: id)] ?? id
    }

    /// The record with its to-one references to merged-away inserts pointed at the survivors.
    private func redirected(_ input: Record) -> Record {
        guard !redirects.isEmpty, let entity = schema.entity(input.entity) else { return input }
        var record = input
        for relationship in entity.relationships where relationship.isToOne {
            if let target = RecordID(record[relationship.name]) {
                record[relationship.name] = redirected(target, in: relationship.destination).value
            }
        }
        return record
    }

    private func storedValues(_ record: Record, _ names: some Sequence<String>) -> [String: Value] {
        guard let entity = schema.entity(record.entity) else { return [:] }
        var values: [String: Value] = [:]
        for name in names where entity.isStoredProperty(name) { values[name] = record[name] }
        return values
    }

    private func applyRecords() throws {
        for change in changes.records {
            let key = change.key
            switch (change.base, change.current) {
            case (nil, let inserted?):
                let record = redirected(inserted)
                guard let conflict = conflicts[key], let existing = conflict.stored, let decision = decisions[key] else {
                    try session.insert(record)
                    continue
                }
                try mergeInsert(record, into: existing, decision)
            case (_?, nil):
                guard stored[key] != nil else { continue }
                switch decisions[key] {
                case nil, .objectTrump?, .overwrite?: try session.delete(key)
                case .storeTrump?, .rollback?: continue
                case .use(let record)?: try session.patch(key, storedValues(record, record.values.keys))
                }
            case (_?, let wanted?):
                let record = redirected(wanted)
                let changed = storedValues(record, change.changed)
                guard let decision = decisions[key], let conflict = conflicts[key] else {
                    if !changed.isEmpty { try session.patch(key, changed) }
                    continue
                }
                if conflict.kind == .deletedInStore {
                    switch decision {
                    case .objectTrump, .overwrite: try session.insert(record)
                    case .use(let chosen): try session.insert(redirected(chosen))
                    case .storeTrump, .rollback: continue
                    }
                    continue
                }
                switch decision {
                case .objectTrump:
                    if !changed.isEmpty { try session.patch(key, changed) }
                case .storeTrump:
                    let untouched = changed.filter { !conflict.storeChanges.contains($0.key) }
                    if !untouched.isEmpty { try session.patch(key, untouched) }
                case .overwrite:
                    try session.update(record)
                case .rollback:
                    continue
                case .use(let chosen):
                    try session.patch(key, storedValues(chosen, chosen.values.keys))
                }
            case (nil, nil):
                continue
            }
        }
    }

    /// A uniqueness clash merged into the stored record, whose ID survives.
    private func mergeInsert(_ record: Record, into existing: Record, _ decision: Decision) throws {
        let key = existing.key
        let incoming = storedValues(record, record.values.keys)
        switch decision {
        case .objectTrump:
            try session.patch(key, incoming.filter { !$0.value.isNull })
        case .storeTrump:
            try session.patch(key, incoming.filter { !$0.value.isNull && existing[$0.key].isNull })
        case .overwrite:
            var replacement = record
            replacement.id = existing.id
            try session.update(replacement)
        case .rollback:
            return
        case .use(let chosen):
            try session.patch(key, storedValues(chosen, chosen.values.keys))
        }
    }

    private func applyMemberships() throws {
        for (index, membership) in changes.memberships.enumerated() {
            let ownerKey = RecordKey(entity: membership.owner.entity, id: redirected(membership.owner.id, in: membership.owner.entity))
            guard let relationship = schema.entity(ownerKey.entity)?.relationship(membership.relationship),
                let owner = try workingSet.record(ownerKey.entity, id: ownerKey.id)
            else { continue }
            let desired = membership.desired.map { redirected($0, in: relationship.destination) }
            let current = try workingSet.relatedIDs(of: owner, relationship)
            let resolved: [RecordID]
            if ownerKey != membership.owner {
                // Merged into a stored record: the new record's destinations join the survivor's.
                guard let decision = decisions[membership.owner] else { continue }
                switch decision {
                case .rollback: continue
                case .overwrite: resolved = desired
                case .objectTrump, .storeTrump, .use: resolved = Self.merge(stored: current, base: [], desired: desired)
                }
            } else if let decision = decisions[ownerKey] {
                let storedList = storedMemberships[index] ?? []
                let storeMoved = Set(storedList) != Set(membership.base) || (isOrdered(membership) && storedList != membership.base)
                switch decision {
                case .rollback: continue
                case .storeTrump where storeMoved: continue
                case _ where conflicts[ownerKey]?.kind == .deletedInStore: resolved = desired
                case .overwrite: resolved = desired
                case .objectTrump, .storeTrump, .use: resolved = Self.merge(stored: current, base: membership.base, desired: desired)
                }
            } else {
                resolved = desired
            }
            var existing: [RecordID] = []
            for target in resolved where try workingSet.record(relationship.destination, id: target) != nil { existing.append(target) }
            if existing != current { try session.setRelated(ownerKey, relationship.name, existing) }
        }
    }

    /// A three-way merge of a membership: the context's additions and removals applied to the
    /// stored list, which keeps its order; additions follow in the context's order.
    static func merge(stored: [RecordID], base: [RecordID], desired: [RecordID]) -> [RecordID] {
        let baseSet = Set(base)
        let desiredSet = Set(desired)
        let removed = baseSet.subtracting(desiredSet)
        var result = stored.filter { !removed.contains($0) }
        var present = Set(result)
        for target in desired where !baseSet.contains(target) && present.insert(target).inserted { result.append(target) }
        return result
    }
}
