/// The staged state of one save over a backend transaction. Reads through it see the save's own
/// changes; indexes over the staged records keep referrer and link-owner lookups from scanning.
/// Over a read transaction it is a private overlay (a context's fetches see its pending changes).
package final class WorkingSet: StorageReadTransaction {
    package struct Entry {
        package let key: RecordKey
        /// The committed record, `nil` for an insert.
        package var original: Record?
        /// The staged record, `nil` once deleted.
        package var current: Record?
    }

    // Both keys hash their ID alone (see `RecordKey.hash(into:)`); equality compares every field.
    struct ReferenceKey: Hashable {
        var entity: String
        var property: String
        var target: RecordID
        func hash(into hasher: inout Hasher) { hasher.combine(target) }
    }

    let base: any StorageReadTransaction
    package let schema: Schema
    let executor: QueryExecutor

    /// Every staged record in first-touch order, so writes and history follow the order of the
    /// save; the passes over a save walk this array instead of hashing each key again.
    package private(set) var staged: [Entry] = []
    /// Where each staged key is in `staged`.
    private var positions: [RecordKey: Int] = [:]
    private(set) var touchedEntities: Set<String> = []
    /// The entity a first touch last added to `touchedEntities`.
    private var lastTouched: String?
    /// For every staged record: which targets its to-one references point at now.
    private var stagedReferrers: [ReferenceKey: Set<RecordID>] = [:]

    private(set) var linkEntries: [LinkKey: (original: [RecordID], current: [RecordID])] = [:]
    private(set) var linkOrder: [LinkKey] = []
    /// For every staged link list: which owners contain a target now.
    private var stagedLinkOwners: [ReferenceKey: Set<RecordID>] = [:]
    /// Committed states read ahead by ``prefetch(_:ids:)`` (`nil`: absent), consulted for records
    /// this save has not touched.
    private var prefetched: [RecordKey: Record?] = [:]

    init(base: any StorageReadTransaction, executor: QueryExecutor) {
        self.base = base
        self.schema = base.schema
        self.executor = executor
    }

    // MARK: Records

    package func record(_ entity: String, id: RecordID) throws -> Record? {
        // No record can have an ID longer than every backend holds; none is asked for one.
        guard ValueRules.isStorable(id) else { return nil }
        let key = RecordKey(entity: entity, id: id)
        if let position = positions[key] { return staged[position].current }
        if let known = prefetched[key] { return known }
        return try base.record(entity, id: id)
    }

    /// Reads the committed state of many records in one batched lookup, so that reading or
    /// staging each of them later reads nothing one at a time (a pulled page, a pushed batch).
    /// Records this save already touched are skipped; absent ones are remembered as absent.
    package func prefetch(_ entity: String, ids: [RecordID]) throws {
        guard schema.entity(entity) != nil else { return }
        let wanted = ids.filter { ValueRules.isStorable($0) && positions[RecordKey(entity: entity, id: $0)] == nil }
        guard !wanted.isEmpty else { return }
        let found = try base.records(entity, ids: wanted)
        prefetched.reserveCapacity(prefetched.count + wanted.count)
        for id in wanted { prefetched[RecordKey(entity: entity, id: id)] = .some(found[id]) }
    }

    /// The staged state of `key`, if this save touched it.
    package func entry(_ key: RecordKey) -> Entry? { positions[key].map { staged[$0] } }

    /// Stages a new state for a record (`nil` deletes it). A caller that has just read the
    /// committed record passes it as `original`, sparing the backend a second lookup.
    func stage(_ key: RecordKey, _ record: Record?, original known: Record?? = .none) throws {
        guard let position = positions[key] else {
            // A first touch: the committed state is replaced at once, so only the new state is
            // indexed (indexing the original only to unindex it was a third of a cascade's staging).
            let original = try known ?? prefetched[key] ?? base.record(key.entity, id: key.id)
            append(Entry(key: key, original: original, current: record))
            if let record { index(record, adding: true) }
            return
        }
        if let previous = staged[position].current { index(previous, adding: false) }
        staged[position].current = record
        if let record { index(record, adding: true) }
    }

    func stage(_ record: Record) throws { try stage(record.key, record) }

    /// Stages the delete of a record whose current state the caller has just read; `false` when
    /// this save has already deleted it. One lookup of the key, and one insert on a first touch.
    func stageDeletion(_ key: RecordKey, current record: Record) -> Bool {
        guard let position = positions[key] else {
            append(Entry(key: key, original: record, current: nil))
            return true
        }
        guard let previous = staged[position].current else { return false }
        index(previous, adding: false)
        staged[position].current = nil
        return true
    }

    /// Stages an insert of a key this save has not touched (the caller looked it up): one hash
    /// of the key, the entity's description given.
    func stageInsert(_ key: RecordKey, _ record: Record, entity: EntityDescription) {
        append(Entry(key: key, original: nil, current: record))
        index(record, entity: entity, adding: true)
    }

    /// A first touch: one hash of the key; the entity noted as touched unless it was the last one.
    private func append(_ entry: Entry) {
        positions[entry.key] = staged.count
        staged.append(entry)
        if lastTouched != entry.key.entity {
            touchedEntities.insert(entry.key.entity)
            lastTouched = entry.key.entity
        }
    }

    /// Room for `count` more first touches: a save of many inserts then grows its tables once
    /// instead of rehashing every entry at each doubling.
    package func reserve(_ count: Int) {
        positions.reserveCapacity(positions.count + count)
        staged.reserveCapacity(staged.count + count)
    }

    /// The current state of many records of one entity: staged ones from the working set, the
    /// rest from the backend's batched lookup rather than one lookup each.
    package func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        try overlay(entity, ids, { $0 }) { try base.records(entity, ids: $0) }
    }

    /// The versions of many records of one entity as they stand now (see `records(_:ids:)`):
    /// staged ones from the working set, the rest from the backend without reading their values.
    package func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        try overlay(entity, ids, \.version) { try base.versions(entity, ids: $0) }
    }

    /// `read(record)` of each staged record among `ids` that exists now, and `committed` for the
    /// IDs this save has not touched.
    private func overlay<T>(
        _ entity: String, _ ids: [RecordID], _ read: (Record) -> T,
        committed: ([RecordID]) throws -> [RecordID: T]
    ) throws -> [RecordID: T] {
        var found: [RecordID: T] = [:]
        var missing: [RecordID] = []
        missing.reserveCapacity(ids.count)
        // An entity this save has not touched has nothing staged: no key is looked up.
        let touched = touchedEntities.contains(entity)
        for id in ids where ValueRules.isStorable(id) {
            if touched, let position = positions[RecordKey(entity: entity, id: id)] {
                if let current = staged[position].current { found[id] = read(current) }
            } else {
                missing.append(id)
            }
        }
        guard !missing.isEmpty else { return found }
        let stored = try committed(missing)
        if found.isEmpty { return stored }
        found.merge(stored) { staged, _ in staged }
        return found
    }

    /// The IDs among `ids` whose records exist now, in the given order (a relationship may only
    /// point at records that exist).
    package func existing(_ ids: [RecordID], of entity: String) throws -> [RecordID] {
        try ids.filter { try record(entity, id: $0) != nil }
    }

    /// Whether the committed record was already looked up (or staged) by this save.
    func hasEntry(_ key: RecordKey) -> Bool { positions[key] != nil }

    private func index(_ record: Record, adding: Bool) {
        guard let entity = schema.entity(record.entity) else { return }
        index(record, entity: entity, adding: adding)
    }

    private func index(_ record: Record, entity: EntityDescription, adding: Bool) {
        for relationship in entity.relationships where relationship.isToOne {
            guard let target = RecordID(record[relationship.name]) else { continue }
            let key = ReferenceKey(entity: record.entity, property: relationship.name, target: target)
            if adding {
                stagedReferrers[key, default: []].insert(record.id)
            } else {
                stagedReferrers[key]?.remove(record.id)
            }
        }
    }

    package func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        let committed = try base.referrers(entity, property: property, to: target)
        guard touchedEntities.contains(entity) else { return committed }
        var result = Set(committed.filter { positions[RecordKey(entity: entity, id: $0)] == nil })
        result.formUnion(stagedReferrers[ReferenceKey(entity: entity, property: property, target: target)] ?? [])
        return result.sorted()
    }

    /// The records staged in this save whose to-one `property` names `target`, in the order they
    /// were first staged (no backend read).
    func stagedReferrers(_ entity: String, property: String, to target: RecordID) -> [RecordID] {
        let found = stagedReferrers[ReferenceKey(entity: entity, property: property, target: target)] ?? []
        return found.sorted {
            (positions[RecordKey(entity: entity, id: $0)] ?? .max, $0) < (
                positions[RecordKey(entity: entity, id: $1)] ?? .max, $1
            )
        }
    }

    package func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID:
        [RecordID]]
    {
        let committed = try base.referrers(entity, property: property, toEach: targets)
        guard touchedEntities.contains(entity) else { return committed }
        var result: [RecordID: [RecordID]] = [:]
        for target in Set(targets) {
            var found = Set((committed[target] ?? []).filter { positions[RecordKey(entity: entity, id: $0)] == nil })
            found.formUnion(stagedReferrers[ReferenceKey(entity: entity, property: property, target: target)] ?? [])
            if !found.isEmpty { result[target] = found.sorted() }
        }
        return result
    }

    // MARK: Links

    package func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        if let entry = linkEntries[LinkKey(entity: entity, relationship: relationship, owner: owner)] {
            return entry.current
        }
        return try base.links(entity, relationship: relationship, from: owner)
    }

    package func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        let committed = try base.linkOwners(entity, relationship: relationship, to: target)
        var result = Set(
            committed.filter {
                linkEntries[LinkKey(entity: entity, relationship: relationship, owner: $0)] == nil
            })
        result.formUnion(stagedLinkOwners[ReferenceKey(entity: entity, property: relationship, target: target)] ?? [])
        return result.sorted()
    }

    func stageLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        let key = LinkKey(entity: entity, relationship: relationship, owner: owner)
        if linkEntries[key] == nil {
            let original = try base.links(entity, relationship: relationship, from: owner)
            linkEntries[key] = (original, original)
            linkOrder.append(key)
            indexLinks(key, original, adding: true)
        }
        if let previous = linkEntries[key]?.current { indexLinks(key, previous, adding: false) }
        linkEntries[key]?.current = targets
        indexLinks(key, targets, adding: true)
    }

    private func indexLinks(_ key: LinkKey, _ targets: [RecordID], adding: Bool) {
        for target in targets {
            let reference = ReferenceKey(entity: key.entity, property: key.relationship, target: target)
            if adding {
                stagedLinkOwners[reference, default: []].insert(key.owner)
            } else {
                stagedLinkOwners[reference]?.remove(key.owner)
            }
        }
    }

    // MARK: Queries over the staged state

    package func fetch(_ plan: FetchPlan) throws -> [Record] {
        let usesRelationships =
            plan.predicate.map { !$0.requiredFeatures.isDisjoint(with: [.toOne, .toMany]) } ?? false
        if !touchedEntities.contains(plan.entity) && (!usesRelationships || staged.isEmpty) {
            return try executor.fetch(plan, in: base)
        }
        // Committed candidates (all of them when relationships may have changed), minus staged
        // records, plus staged records that match now.
        let candidatePlan = FetchPlan(entity: plan.entity, predicate: usesRelationships ? nil : plan.predicate)
        var records = try executor.fetch(candidatePlan, in: base).filter {
            positions[RecordKey(entity: plan.entity, id: $0.id)] == nil
        }
        let evaluator = PredicateEvaluator(self)
        if usesRelationships, let predicate = plan.predicate {
            records = try records.filter { try evaluator.matches($0, predicate) }
        }
        for entry in staged where entry.key.entity == plan.entity {
            guard let record = entry.current else { continue }
            if try plan.predicate.map({ try evaluator.matches(record, $0) }) ?? true { records.append(record) }
        }
        return PredicateEvaluator.sortAndPage(records, plan)
    }

    package func count(_ plan: FetchPlan) throws -> Int {
        try fetch(FetchPlan(entity: plan.entity, predicate: plan.predicate)).count
    }

    package func metadata(_ key: String) throws -> [UInt8]? { try base.metadata(key) }

    package func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        try base.metadata(prefix: prefix, after: after, limit: limit)
    }
}
