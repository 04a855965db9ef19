import StrataStorage
import Synchronization

/// Migrations on the in-memory backend: the stage runs on a copy-on-write copy of the state,
/// which replaces the store's only when every stage succeeded.
extension InMemoryBackend: SchemaChangingBackend {
    public func changeSchema<T: Sendable>(_ body: @escaping @Sendable (any SchemaChangeTransaction) throws -> T)
        async throws -> T
    {
        try await changeSchema(body, beforeCommit: { _ in })
    }

    /// ``changeSchema(_:)`` with `beforeCommit` run on the final state while the store is still
    /// locked: a file-backed store built on this one writes its new document there, and a throw
    /// from it discards the migration.
    public func changeSchema<T: Sendable>(
        _ body: @escaping @Sendable (any SchemaChangeTransaction) throws -> T,
        beforeCommit: @escaping @Sendable (any StorageWriteTransaction) throws -> Void
    ) async throws -> T {
        if isClosedNow { throw StrataError(.storeClosed, "the store has been closed") }
        let (schema, capabilities, database) = (self.schema, self.capabilities, self.database)
        return try database.state.withLock { state throws -> T in
            let change = InMemorySchemaChange(schema: schema, state: state, capabilities: capabilities)
            let result = try body(change)
            try change.current.setMetadata(SchemaDescription.metadataKey, SchemaDescription(change.schema).encoded())
            try beforeCommit(change.current)
            state = change.transaction.takeState()
            database.setDescription(SchemaDescription(change.schema))
            database.migrations.add(1, ordering: .releasing)
            return result
        }
    }
}

final class InMemorySchemaChange: SchemaChangeTransaction {
    private(set) var schema: Schema
    private(set) var transaction: InMemoryWriteTransaction
    let capabilities: FetchCapabilities

    init(schema: Schema, state: InMemoryState, capabilities: FetchCapabilities) {
        self.schema = schema
        self.capabilities = capabilities
        self.transaction = InMemoryWriteTransaction(schema: schema, state: state, capabilities: capabilities)
    }

    var current: any StorageWriteTransaction { transaction }

    func change(
        to target: Schema, rebuilding retired: Set<String>, creating created: Set<String>,
        reindexing reindexed: Set<String>,
        _ body: (any StorageReadTransaction, any StorageWriteTransaction) throws -> Void
    ) throws {
        let aside = InMemoryReadTransaction(schema: schema, state: transaction.state, capabilities: capabilities)
        var state = transaction.takeState()
        for name in retired { state.tables[name] = nil }
        state.links = state.links.filter { !retired.contains($0.key.entity) }
        state.linkOwners = state.linkOwners.filter { !retired.contains($0.key.entity) }
        let empty = InMemoryState(schema: target)
        for name in created { state.tables[name] = empty.tables[name] }
        for name in reindexed {
            // The records stay; the table's indexes are built again for the target's declaration.
            guard var table = empty.tables[name], let records = state.tables[name]?.records else { continue }
            for record in records.values {
                table.records[record.id] = record
                table.ids.insert(record.id)
                table.add(record)
            }
            state.tables[name] = table
        }
        transaction = InMemoryWriteTransaction(schema: target, state: state, capabilities: capabilities)
        try body(SetAsideReads(schema: schema, aside: aside, retired: retired, live: transaction), transaction)
        schema = target
    }
}

/// The store as it was during a stage: retired entities from the set-aside state, the rest (and
/// metadata) from the live transaction, as the file backends see their untouched tables.
final class SetAsideReads: ForwardingReadTransaction {
    let schema: Schema
    let aside: InMemoryReadTransaction
    let retired: Set<String>
    let live: InMemoryWriteTransaction

    init(schema: Schema, aside: InMemoryReadTransaction, retired: Set<String>, live: InMemoryWriteTransaction) {
        self.schema = schema
        self.aside = aside
        self.retired = retired
        self.live = live
    }

    var readsGoTo: any StorageReadTransaction { live }

    private func side(_ entity: String) -> any StorageReadTransaction { retired.contains(entity) ? aside : live }

    func record(_ entity: String, id: RecordID) throws -> Record? { try side(entity).record(entity, id: id) }
    func fetch(_ plan: FetchPlan) throws -> [Record] { try side(plan.entity).fetch(plan) }
    func count(_ plan: FetchPlan) throws -> Int { try side(plan.entity).count(plan) }
    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        try side(entity).referrers(entity, property: property, to: target)
    }
    func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        try side(entity).records(entity, ids: ids)
    }
    func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        try side(entity).existingIDs(entity, among: ids)
    }
    func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        try side(entity).versions(entity, ids: ids)
    }
    func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]] {
        try side(entity).referrers(entity, property: property, toEach: targets)
    }
    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        try side(entity).links(entity, relationship: relationship, from: owner)
    }
    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        try side(entity).linkOwners(entity, relationship: relationship, to: target)
    }
}
