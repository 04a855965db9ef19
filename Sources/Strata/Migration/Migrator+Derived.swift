/// Derived attributes in a migration: an added one is backfilled, a changed derivation recomputed.
extension Migrator {
    /// The entities whose derived attributes a stage must compute: those it rebuilt or whose
    /// records its custom stage wrote, and those counting a to-many into one of them.
    static func entitiesToDerive(in schema: Schema, rebuilt: Set<String>) -> [EntityDescription] {
        schema.entities.filter { entity in
            guard entity.attributes.contains(where: { $0.derivation != nil }) else { return false }
            if rebuilt.contains(entity.name) { return true }
            return entity.countedRelationships.keys.contains { name in
                entity.relationship(name).map { rebuilt.contains($0.destination) } ?? false
            }
        }.sorted { $0.name < $1.name }
    }

    /// Computes every derived attribute of every record of `entity` in the new layout, batch by
    /// batch, writing back the records whose values change (their versions kept, as a migration
    /// keeps every version).
    func derive(
        _ entity: EntityDescription, in new: any StorageWriteTransaction, executor: QueryExecutor,
        checkpoint: () throws -> Void, report: (MigrationProgress.Phase, Int, Int) -> Void
    ) throws {
        var done = 0
        try Self.forEachBatch(entity.name, in: new, executor: executor, size: batchSize) { batch in
            var changed: [Record] = []
            for stored in batch {
                var record = stored.inLayout(entity.layout)
                for (_, name, derivation) in entity.ownDerivations {
                    record[name] = try SaveSession.derive(derivation, of: record, attribute: name, in: entity)
                }
                for (name, slots) in entity.countedRelationships {
                    guard let relationship = entity.relationship(name) else { continue }
                    let count = try new.existingMemberCount(of: record, relationship)
                    for slot in slots { record[entity.attributes[slot].name] = .int(Int64(count)) }
                }
                if record.slots != stored.inLayout(entity.layout).slots { changed.append(record) }
            }
            if !changed.isEmpty { try new.put(contentsOf: changed) }
            try checkpoint()
            done += batch.count
            report(.checking(entity: entity.name), done, done)
        }
    }
}
