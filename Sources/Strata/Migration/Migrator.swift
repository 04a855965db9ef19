import Foundation

/// Runs a migration's stages inside one `SchemaChangingBackend.changeSchema(_:)`: per stage, the
/// backend sets aside the storage of every entity whose shape changes; the engine carries each
/// record over (renames, defaults, relationships re-derived), runs the custom closure, and checks
/// what the new version requires; finally one history entry records it.
struct Migrator: Sendable {
    static var historyAuthor: String { MigrationPlan.historyAuthor }

    let steps: [MigrationPlan.Step]
    let capabilities: FetchCapabilities
    let batchSize: Int
    let progress: @Sendable (MigrationProgress) -> Void

    func run(_ transaction: any SchemaChangeTransaction) throws {
        let executor = QueryExecutor(capabilities: capabilities)
        for (number, step) in steps.enumerated() {
            try run(step, number: number + 1, in: transaction, executor: executor)
        }
        let first = steps.first?.from.version ?? "unnamed"
        let last = steps.last?.to.version ?? transaction.schema.version ?? "app"
        if !steps.isEmpty {
            let what = steps.contains(where: \.isReset) ? "reset" : "schema"
            _ = try HistoryLog.append(
                [], author: Self.historyAuthor, contextName: "\(what) \(first) → \(last)", to: transaction.current)
        }
        progress(
            MigrationProgress(
                stage: steps.count, stages: steps.count, from: steps.last?.from.version, to: steps.last?.to.version,
                phase: .finished, done: 0, total: 0))
    }

    private func run(
        _ step: MigrationPlan.Step, number: Int, in transaction: any SchemaChangeTransaction, executor: QueryExecutor
    ) throws {
        let stored = SchemaDescription(step.from)
        let (_, problems) = LightweightMigration.infer(from: stored, to: step.to, converting: step.conversions)
        let isCustom: Bool
        if case .custom = step.kind { isCustom = true } else { isCustom = false }
        if !problems.isEmpty, !isCustom, !step.isReset {
            let list = problems.map { "\($0.entity)\($0.property.map { "." + $0 } ?? ""): \($0.text)" }.joined(
                separator: "; ")
            throw StrataError(
                .migrationRequired, entity: problems[0].entity, property: problems[0].property,
                "\(step.name): no lightweight step covers these changes; "
                    + "add a custom stage to the migration plan: \(list)"
            )
        }
        // Which stored entity each new one comes from, and which keep their storage untouched.
        let fromDescription = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let toDescription = Dictionary(
            SchemaDescription(step.to).entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let oldNames = StoredNames.entities(of: step.to) { step.from.entity($0) != nil }
        let kept: Set<String> =
            step.isReset
            ? []
            : Set(
                step.to.entities.map(\.name).filter { name in
                    oldNames[name] == name && fromDescription[name] == toDescription[name]
                })
        // Records laid out alike, only indexes or unique constraints differing: the backend
        // rebuilds the indexes and no record is copied.
        let reindexed = Set(
            step.to.entities.map(\.name).filter { name in
                guard !step.isReset, !kept.contains(name), oldNames[name] == name, let before = fromDescription[name],
                    let after = toDescription[name]
                else { return false }
                return Self.withoutIndexes(before) == Self.withoutIndexes(after)
            })
        let retired = Set(step.from.entities.map(\.name)).subtracting(kept).subtracting(reindexed)
        let created = Set(step.to.entities.map(\.name)).subtracting(kept).subtracting(reindexed)
        let idKindChanged: Set<String> = Set(problems.filter { $0.property == nil }.map { $0.entity })
        let mappings: [EntityMapping] =
            step.isReset
            ? []
            : step.to.entities.filter { created.contains($0.name) }.sorted { $0.name < $1.name }.map {
                target -> EntityMapping in
                let source =
                    idKindChanged.contains(target.name) ? nil : oldNames[target.name].flatMap { step.from.entity($0) }
                let conversions = step.conversions.filter { $0.entity == target.name }
                return EntityMapping(target: target, source: source, oldNames: oldNames, conversions: conversions)
            }
        let report = { (phase: MigrationProgress.Phase, done: Int, total: Int) in
            progress(
                MigrationProgress(
                    stage: number, stages: steps.count, from: step.from.version, to: step.to.version, phase: phase,
                    done: done, total: total))
        }
        try transaction.change(to: step.to, rebuilding: retired, creating: created, reindexing: reindexed) { old, new in
            if step.isReset {
                for entity in step.from.entities { try SearchIndexRebuild.drop(entity.name, in: new) }
                return
            }
            for mapping in mappings {
                try copy(
                    mapping, from: old, to: new, executor: executor, checkpoint: transaction.checkpoint, report: report)
            }
            var touched: Set<String> = []
            var missingRequired: [RecordKey: String] = [:]
            if case .custom(let migrate) = step.kind {
                report(.custom, 0, 0)
                let migration = CustomMigration(
                    source: step.from, target: step.to, old: old, new: new, executor: executor, batchSize: batchSize,
                    checkpoint: transaction.checkpoint)
                try migrate(migration)
                try migration.flush()
                touched = migration.touched
                missingRequired = migration.missingRequired
            }
            // Added derived attributes are backfilled, changed ones recomputed, before the check.
            let derived = Self.entitiesToDerive(in: step.to, rebuilt: created.union(touched))
            for entity in derived {
                try derive(entity, in: new, executor: executor, checkpoint: transaction.checkpoint, report: report)
            }
            for entity in step.to.entities.sorted(by: { $0.name < $1.name }) {
                let mapping = mappings.first { $0.target.name == entity.name }
                // The custom stage's puts were checked as they came; an entity's other records are as
                // the inferred steps left them, which leave a required value empty only where
                // `unfilled` says so. Derived values are written after the puts: read them all.
                let required =
                    (mapping.map { !$0.unfilled.isEmpty } ?? false)
                    || (touched.contains(entity.name) && derived.contains { $0.name == entity.name })
                if touched.contains(entity.name), !required {
                    try Self.refuse(entity, missing: missingRequired)
                }
                let added =
                    reindexed.contains(entity.name)
                    ? entity.uniqueConstraints.filter {
                        !(fromDescription[entity.name]?.uniqueConstraints ?? []).contains($0)
                    } : []
                let constraints =
                    touched.contains(entity.name) ? entity.uniqueConstraints : (mapping?.newUniqueConstraints ?? added)
                if required || !constraints.isEmpty {
                    try check(
                        entity, required: required, constraints: constraints, in: new, executor: executor,
                        report: report)
                }
            }
            try rebuildSearchIndexes(
                step, retired: retired, rewritten: created.union(touched).union(derived.map(\.name)), in: new,
                executor: executor)
        }
    }

    /// Full-text indexes follow the records: an entity's are dropped when it is retired, and built
    /// again from its records when the step rewrote them or changed the indexes themselves.
    private func rebuildSearchIndexes(
        _ step: MigrationPlan.Step, retired: Set<String>, rewritten: Set<String>, in new: any StorageWriteTransaction,
        executor: QueryExecutor
    ) throws {
        for name in retired.sorted() { try SearchIndexRebuild.drop(name, in: new) }
        for entity in step.to.entities.sorted(by: { $0.name < $1.name }) {
            let before = step.from.entity(entity.name)?.searchIndexes ?? []
            let changed = before != entity.searchIndexes
            guard changed || (rewritten.contains(entity.name) && !entity.searchIndexes.isEmpty) else { continue }
            if !retired.contains(entity.name) { try SearchIndexRebuild.drop(entity.name, in: new) }
            try SearchIndexRebuild.build(entity, in: new, executor: executor, batchSize: max(batchSize, 10_000))
        }
    }

    /// Carries every record of the mapping's source over into the new layout, batch by batch,
    /// with the link lists the target keeps.
    private func copy(
        _ mapping: EntityMapping, from old: any StorageReadTransaction, to new: any StorageWriteTransaction,
        executor: QueryExecutor, checkpoint: () throws -> Void, report: (MigrationProgress.Phase, Int, Int) -> Void
    ) throws {
        guard let source = mapping.source else { return }
        let total = try executor.count(FetchPlan(entity: source.name), in: old)
        var done = 0
        report(.copying(entity: mapping.target.name), 0, total)
        try Self.forEachBatch(source.name, in: old, executor: executor, size: batchSize) { batch in
            var members: [String: [RecordID: [RecordID]]] = [:]
            func membersOf(_ relationship: RelationshipDescription) throws -> [RecordID: [RecordID]] {
                if let found = members[relationship.name] { return found }
                let found = try EntityMapping.members(of: relationship, in: source, owners: batch, from: old)
                members[relationship.name] = found
                return found
            }
            let records = try batch.map { record in
                try mapping.record(from: record) { relationship in try membersOf(relationship)[record.id] ?? [] }
            }
            try new.put(contentsOf: records)
            for (relationship, from) in mapping.linkLists {
                let lists = try membersOf(from)
                for record in batch {
                    if let targets = lists[record.id], !targets.isEmpty {
                        try new.setLinks(
                            mapping.target.name, relationship: relationship.name, from: record.id, to: targets)
                    }
                }
            }
            try checkpoint()
            done += batch.count
            report(.copying(entity: mapping.target.name), done, total)
        }
    }

    /// After a stage: every record has its required properties, and no two share a value of a
    /// unique constraint (a migration never removes a record to satisfy one).
    private func check(
        _ entity: EntityDescription, required: Bool, constraints: [[String]], in new: any StorageWriteTransaction,
        executor: QueryExecutor, report: (MigrationProgress.Phase, Int, Int) -> Void
    ) throws {
        let requiredSlots = required ? Self.requiredSlots(of: entity) : []
        var missing: [(id: RecordID, property: String)] = []
        var missingCount = 0
        var claimed = Array(repeating: [[Value]: RecordID](), count: constraints.count)
        var duplicates: [(constraint: [String], values: [Value], ids: (RecordID, RecordID))] = []
        var done = 0
        try Self.forEachBatch(entity.name, in: new, executor: executor, size: batchSize) { batch in
            for record in batch {
                let record = record.inLayout(entity.layout)
                for (slot, name) in requiredSlots where record.slots[slot].isNull {
                    missingCount += 1
                    if missing.count < 10 { missing.append((record.id, name)) }
                }
                for (position, constraint) in constraints.enumerated() {
                    let tuple = constraint.map { record[$0] }
                    if tuple.contains(where: \.isNull) { continue }
                    if let other = claimed[position][tuple] {
                        if duplicates.count < 10 { duplicates.append((constraint, tuple, (other, record.id))) }
                    } else {
                        claimed[position][tuple] = record.id
                    }
                }
            }
            done += batch.count
            report(.checking(entity: entity.name), done, done)
        }
        try Self.refuse(entity, missing: missing, count: missingCount)
        if let first = duplicates.first {
            let list = duplicates.map { duplicate in
                let shared = zip(duplicate.constraint, duplicate.values).map { "\($0)=\($1)" }
                return "\(duplicate.ids.0) and \(duplicate.ids.1) share \(shared.joined(separator: ", "))"
            }.joined(separator: "; ")
            throw StrataError(
                .uniqueViolation, entity: entity.name, recordID: first.ids.1,
                property: first.constraint.joined(separator: ","), count: duplicates.count,
                "the unique constraint \(entity.name)(\(first.constraint.joined(separator: ", "))) does not hold "
                    + "for the stored records: \(list); a migration never removes records to satisfy it — "
                    + "resolve them first, or in a custom stage"
            )
        }
    }

    /// The slots of `entity`'s required attributes and required to-ones.
    static func requiredSlots(of entity: EntityDescription) -> [(slot: Int, name: String)] {
        entity.layout.names.enumerated().compactMap { slot, name in
            if let attribute = entity.attribute(name) { return attribute.isOptional ? nil : (slot, name) }
            return entity.relationship(name)?.isRequired == true ? (slot, name) : nil
        }
    }

    /// Fails the migration naming the first (up to ten) records of `entity` left without a value
    /// for a required property, when there are any.
    static func refuse(_ entity: EntityDescription, missing: [(id: RecordID, property: String)], count: Int) throws {
        guard let first = missing.first else { return }
        let list = missing.map { "\($0.id) (\($0.property))" }.joined(separator: ", ")
        throw StrataError(
            .missingValue, entity: entity.name, recordID: first.id, property: first.property, count: count,
            "after the migration \(count) record(s) of \(entity.name) have no value for a required property: "
                + "\(list)\(count > missing.count ? ", …" : ""); give it a default, or fill it in a custom stage"
        )
    }

    /// Fails the migration when a custom stage put records of `entity` without a required value.
    static func refuse(_ entity: EntityDescription, missing: [RecordKey: String]) throws {
        let found = missing.filter { $0.key.entity == entity.name }.map { (id: $0.key.id, property: $0.value) }
        guard !found.isEmpty else { return }
        let first = found.sorted { $0.id < $1.id }.prefix(10)
        try refuse(entity, missing: Array(first), count: found.count)
    }

    /// An entity's description with its indexes and unique constraints left out: equal for two
    /// shapes whose records are stored alike.
    static func withoutIndexes(_ entity: SchemaDescription.Entity) -> SchemaDescription.Entity {
        var plain = entity
        // An array's or set's index is storage of its own (SQLite's element table): changing it
        // rebuilds the entity rather than reindexing it.
        let collections = Set(entity.attributes.filter { !$0.type.isScalar }.map(\.name))
        plain.indexes = entity.indexes.filter { $0.contains(where: collections.contains) }
        plain.uniqueConstraints = []
        plain.searchIndexes = nil
        for index in plain.attributes.indices where plain.attributes[index].type.isScalar {
            plain.attributes[index].isIndexed = false
        }
        return plain
    }

    /// Every record of `entity`, in ID order, `size` at a time: a range on the ID after the last
    /// batch, so a backend that evaluates it answers from its primary key.
    static func forEachBatch(
        _ entity: String, in transaction: any StorageReadTransaction, executor: QueryExecutor, size: Int,
        _ body: ([Record]) throws -> Void
    ) throws {
        var last: RecordID?
        while true {
            let plan = FetchPlan(
                entity: entity, predicate: last.map { .compare("id", .greater, $0.value, []) }, sort: [SortKey("id")],
                limit: size)
            let batch = try executor.fetch(plan, in: transaction)
            if batch.isEmpty { return }
            try body(batch)
            if batch.count < size { return }
            last = batch.last?.id
        }
    }
}
