/// The handle a ``Store/transaction(author:contextName:_:)`` closure receives: stage inserts,
/// updates, deletes and relationship changes, and read the staged state. Everything commits
/// atomically when the closure returns.
public final class StoreTransaction: StoreReader {
    let session: SaveSession

    init(session: SaveSession) {
        self.session = session
        super.init(transaction: session.workingSet, executor: QueryExecutor(capabilities: .all))
    }

    // MARK: Typed

    /// Inserts a new model. An existing ID is `StrataError.Code.duplicateID`.
    public func insert<M: PersistentModel>(_ model: M) throws {
        try session.insert(try model.record())
    }

    /// Inserts many new models: the same as inserting each in turn, with the save's tables sized
    /// for them once and the models encoded as a batch.
    public func insert<M: PersistentModel>(contentsOf models: [M]) throws {
        session.workingSet.reserve(models.count)
        for record in try KeyPathCodec.records(models) { try session.insert(record) }
    }

    /// Replaces an existing model. A missing one is `StrataError.Code.notFound`.
    public func update<M: PersistentModel>(_ model: M) throws {
        try session.update(try model.record())
    }

    /// Inserts the model, or replaces it if its ID exists.
    public func upsert<M: PersistentModel>(_ model: M) throws {
        try session.upsert(try model.record())
    }

    /// Inserts the model unless its ID exists, which it leaves as it is (get-or-create); returns
    /// whether it inserted. Atomic: of concurrent saves inserting the same ID, one inserts.
    @discardableResult
    public func insertIfAbsent<M: PersistentModel>(_ model: M) throws -> Bool {
        try session.insertIfAbsent(try model.record())
    }

    /// Deletes a model by ID; delete rules apply.
    public func delete<M: PersistentModel>(_ type: M.Type, id: M.ID) throws {
        try session.delete(RecordKey(entity: M.entityName, id: id.recordID))
    }

    /// Deletes every model the query matches (delete rules apply to each); returns how many.
    @discardableResult
    public func delete<M: PersistentModel>(_ query: Query<M>) throws -> Int {
        try delete(matching: try query.plan())
    }

    /// Adds `destination` to a to-many of `source` (for an ordered one, at the end).
    public func link<M: PersistentModel, D: PersistentModel>(
        _ relationship: ToMany<M, D>, from source: M.ID, to destination: D.ID
    ) throws {
        try session.link(RecordKey(entity: M.entityName, id: source.recordID), relationship.name, destination.recordID)
    }

    /// Removes `destination` from a to-many of `source`.
    public func unlink<M: PersistentModel, D: PersistentModel>(
        _ relationship: ToMany<M, D>, from source: M.ID, to destination: D.ID
    ) throws {
        try session.unlink(
            RecordKey(entity: M.entityName, id: source.recordID), relationship.name, destination.recordID)
    }

    /// Makes a to-many of `source` hold exactly `destinations`, in this order when it is ordered.
    public func setRelated<M: PersistentModel, D: PersistentModel>(
        _ relationship: ToMany<M, D>, of source: M.ID, to destinations: [D.ID]
    ) throws {
        try session.setRelated(
            RecordKey(entity: M.entityName, id: source.recordID), relationship.name, destinations.map(\.recordID))
    }

    // MARK: Untyped

    /// Inserts an untyped record; missing attributes take their defaults.
    public func insert(_ record: Record) throws { try session.insert(record) }
    /// Replaces every stored property of an existing untyped record.
    public func update(_ record: Record) throws { try session.update(record) }
    /// Inserts the untyped record, or replaces it if its ID exists.
    public func upsert(_ record: Record) throws { try session.upsert(record) }
    /// Changes the given properties of an existing record, leaving the others. Naming a derived
    /// attribute is `validationFailed`: only the save computes one.
    public func update(_ entity: String, id: RecordID, set values: [String: Value]) throws {
        let key = RecordKey(entity: entity, id: id)
        try session.refuseDerived(key, values.keys)
        try session.patch(key, values)
    }
    /// Deletes every record the plan matches (delete rules apply to each); returns how many.
    @discardableResult
    public func delete(matching plan: FetchPlan) throws -> Int {
        let matches = try executor.fetch(plan, in: transaction)
        for record in matches where try session.workingSet.record(record.entity, id: record.id) != nil {
            try session.delete(record.key)
        }
        return matches.count
    }
    /// Deletes an untyped record; delete rules apply.
    public func delete(_ entity: String, id: RecordID) throws { try session.delete(RecordKey(entity: entity, id: id)) }
    /// Adds `target` to a relationship of the record (for a to-one: points it there).
    public func link(_ entity: String, id: RecordID, _ relationship: String, to target: RecordID) throws {
        try session.link(RecordKey(entity: entity, id: id), relationship, target)
    }
    /// Removes `target` from a relationship of the record.
    public func unlink(_ entity: String, id: RecordID, _ relationship: String, from target: RecordID) throws {
        try session.unlink(RecordKey(entity: entity, id: id), relationship, target)
    }
    /// Makes a relationship of the record hold exactly `targets`, in order when it is ordered.
    public func setRelated(_ entity: String, id: RecordID, _ relationship: String, to targets: [RecordID]) throws {
        try session.setRelated(RecordKey(entity: entity, id: id), relationship, targets)
    }
}
