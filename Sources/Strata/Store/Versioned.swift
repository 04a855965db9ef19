/// A model with the version its record had when it was read — what a service turns into an ETag,
/// and gives back to ``Repository/update(_:expectedVersion:)`` for an `If-Match` update.
public struct Versioned<Model: PersistentModel>: Sendable {
    /// The model as read.
    public let model: Model
    /// The record's version: 1 when inserted, bumped by every save that changes it.
    public let version: Int64

    /// A model with its record's version.
    public init(model: Model, version: Int64) {
        self.model = model
        self.version = version
    }
}

extension StoreReader {
    /// The model with this ID and its record's version, or `nil`.
    public func fetchVersioned<M: PersistentModel>(_ type: M.Type, id: M.ID) throws -> Versioned<M>? {
        guard let record = try record(M.entityName, id: id.recordID) else { return nil }
        return Versioned(model: try M(record: record), version: record.version)
    }
}

extension Repository {
    /// The model with this ID and its record's version, read together, or `nil`.
    public func fetchVersioned(_ id: Model.ID) async throws -> Versioned<Model>? {
        try await store.read { try $0.fetchVersioned(Model.self, id: id) }
    }

    /// Replaces a model only if its record still has `expectedVersion` (optimistic concurrency for
    /// a service: the version it handed out as an ETag). Another version is
    /// ``StrataError/Code/mergeConflict`` — nothing written; a missing record ``StrataError/Code/notFound``.
    public func update(_ model: Model, expectedVersion: Int64) async throws {
        try await store.transaction { transaction in
            let key = RecordKey(entity: Model.entityName, id: model.id.recordID)
            guard let stored = try transaction.session.workingSet.record(key.entity, id: key.id) else {
                throw StrataError(.notFound, entity: key.entity, recordID: key.id, "cannot update a record that does not exist")
            }
            guard stored.version == expectedVersion else {
                throw StrataError(
                    .mergeConflict, entity: key.entity, recordID: key.id,
                    "the record is at version \(stored.version), not the expected \(expectedVersion): it changed since it was read")
            }
            try transaction.update(model)
        }
    }
}
