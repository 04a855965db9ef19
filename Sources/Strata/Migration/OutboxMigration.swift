/// Keeps a sync client's state consistent across a migration: mutations waiting in the outbox are
/// re-expressed in the new schema's names (or the plan refuses while any wait), and the server
/// versions kept per record follow entity renames.
enum OutboxMigration {
    /// Refuses a migration under ``MigrationPlan/OutboxPolicy/refuse`` while mutations wait.
    static func prepare(
        _ policy: MigrationPlan.OutboxPolicy, steps: [MigrationPlan.Step], in transaction: any StorageWriteTransaction
    ) throws {
        guard policy == .refuse, !steps.isEmpty else { return }
        let pending = try Outbox.pendingCount(in: transaction)
        if pending > 0 {
            throw StrataError(
                .migrationRequired, count: pending,
                "\(pending) sync mutation(s) wait in the outbox and the migration plan refuses to migrate them (outbox: .refuse): push them first, or migrate them with outbox: .migrate"
            )
        }
    }

    /// Renames entities and properties in every waiting mutation, stage by stage; drops the values
    /// (and mutations) of what the new schema removed. Server versions follow entity renames.
    static func rewrite(
        _ policy: MigrationPlan.OutboxPolicy, steps: [MigrationPlan.Step], in writer: any StorageWriteTransaction
    ) throws {
        guard !steps.isEmpty else { return }
        let renames = steps.map(Renames.init)
        var after: String?
        var dropped = 0
        while true {
            let page = try writer.metadata(prefix: Outbox.entryPrefix, after: after, limit: 64)
            for (key, bytes) in page {
                let mutations = try Outbox.decode(bytes)
                var rewritten = mutations
                for stage in renames { rewritten = rewritten.compactMap(stage.apply) }
                dropped += mutations.count - rewritten.count
                if rewritten != mutations {
                    try writer.setMetadata(key, rewritten.isEmpty ? nil : Outbox.encode(rewritten))
                }
            }
            guard page.count == 64, let last = page.last else { break }
            after = last.key
        }
        if dropped > 0 {
            var state = try Outbox.State.read(writer)
            state.pending -= min(state.pending, UInt64(dropped))
            try state.write(writer)
        }
        // Server versions are kept under the entity's name: move those of renamed entities.
        for stage in renames {
            for (old, new) in stage.entities where old != new {
                let prefix = Outbox.serverVersionPrefix + old + "\u{1F}"
                while true {
                    let page = try writer.metadata(prefix: prefix, after: nil, limit: 256)
                    if page.isEmpty { break }
                    for (key, value) in page {
                        try writer.setMetadata(
                            Outbox.serverVersionPrefix + new
                                + key.dropFirst(Outbox.serverVersionPrefix.count + old.count), value)
                        try writer.setMetadata(key, nil)
                    }
                }
            }
        }
        _ = policy
    }

    /// One stage's names: old entity → new, and per new entity old property → new.
    struct Renames {
        var entities: [String: String] = [:]
        var properties: [String: [String: String]] = [:]

        init(_ step: MigrationPlan.Step) {
            if step.isReset { return }  // every mutation goes with the data
            for entity in step.to.entities {
                guard
                    let old = StoredNames.of(
                        entity.name, renamedFrom: entity.renamedFrom, isStored: { step.from.entity($0) != nil }),
                    let source = step.from.entity(old)
                else { continue }
                entities[old] = entity.name
                var names: [String: String] = [:]
                for attribute in entity.attributes {
                    if let previous = StoredNames.of(
                        attribute.name, renamedFrom: attribute.renamedFrom, isStored: { source.attribute($0) != nil })
                    {
                        names[previous] = attribute.name
                    }
                }
                for relationship in entity.relationships {
                    if let previous = StoredNames.of(
                        relationship.name, renamedFrom: relationship.renamedFrom,
                        isStored: { source.relationship($0) != nil })
                    {
                        names[previous] = relationship.name
                    }
                }
                properties[entity.name] = names
            }
        }

        /// The mutation in the new names, or nil when its entity is gone.
        func apply(_ mutation: OutboxMutation) -> OutboxMutation? {
            guard let entity = entities[mutation.entity], let names = properties[entity] else { return nil }
            var result = mutation
            result.entity = entity
            result.values = Dictionary(
                mutation.values.compactMap { key, value in names[key].map { ($0, value) } },
                uniquingKeysWith: { a, _ in a })
            result.links = Dictionary(
                mutation.links.compactMap { key, value in names[key].map { ($0, value) } },
                uniquingKeysWith: { a, _ in a })
            if mutation.kind == .put, result.values.isEmpty, result.links.isEmpty, !mutation.isInsert,
                !(mutation.values.isEmpty && mutation.links.isEmpty)
            {
                return nil  // every change it carried was to something removed
            }
            return result
        }
    }
}
