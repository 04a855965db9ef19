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

extension Versioned {
    /// The `If-Match` test both repositories make: a record at another version is a merge conflict.
    static func check(_ key: RecordKey, version: Int64, expected: Int64) throws {
        guard version == expected else {
            throw StrataError(
                .versionMismatch, entity: key.entity, recordID: key.id,
                "the record is at version \(version), not the expected \(expected): it changed since it was read")
        }
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
    /// `StrataError.Code.versionMismatch` (HTTP 412) — nothing written; a missing record `StrataError.Code.notFound`.
    public func update(_ model: Model, expectedVersion: Int64) async throws {
        try await store.transaction { transaction in
            let key = RecordKey(entity: Model.entityName, id: model.id.recordID)
            guard let stored = try transaction.session.workingSet.record(key.entity, id: key.id) else {
                throw StrataError(
                    .notFound, entity: key.entity, recordID: key.id, "cannot update a record that does not exist")
            }
            try Versioned<Model>.check(key, version: stored.version, expected: expectedVersion)
            try transaction.update(model)
        }
    }
}

extension ModelContext {
    /// The model as this context sees it, with the version of the record it was read from (0 for
    /// a record this context inserted and has not saved), or `nil`.
    public func fetchVersioned<M: PersistentModel>(_ type: M.Type, id: M.ID) async throws -> Versioned<M>? {
        guard let model = try await fetch(type, id: id) else { return nil }
        let key = RecordKey(entity: M.entityName, id: id.recordID)
        return Versioned(model: model, version: tracker[key]?.base?.version ?? 0)
    }

    /// Stages an update only if the record this context read is at `expectedVersion`; another
    /// version is `StrataError.Code.versionMismatch` (HTTP 412) and nothing is staged. Whatever other writers
    /// save before this context does is then a conflict for its merge policy, as for any update
    /// (``MergePolicy/error`` refuses it).
    public func update<M: PersistentModel>(_ model: M, expectedVersion: Int64) async throws {
        let key = RecordKey(entity: M.entityName, id: model.id.recordID)
        let entry = try await trackedEntry(key)
        let version = entry.base?.version ?? 0
        try Versioned<M>.check(key, version: version, expected: expectedVersion)
        try await update(model)
    }
}
