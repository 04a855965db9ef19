import Foundation

/// Code an app runs in every save, for every record the save touches, on every path that saves —
/// repositories, transactions, contexts, batch deletes, the records delete rules reach, a sync
/// engine's push and pull, a sync server's apply — as Core Data's `willSave` and Fluent's model
/// middleware do, but also for cascades and batch operations:
///
/// - **before validation** a hook sees each inserted, updated or deleted record and may change an
///   inserted or updated one (set `updatedBy`, derive a slug); the change is validated with the
///   rest;
/// - **after validation** a hook sees each record as it will be written and may refuse the save by
///   throwing: nothing is written, and the error names the hook;
/// - **after commit** a hook sees the committed change set once the save is durable (to enqueue
///   work, invalidate a cache); it cannot undo the save.
///
/// The first two run inside the save's write transaction, exactly once per record per save, in
/// the order the save staged the records; keep them fast and free of I/O. Saves that bring stored
/// values as they are — a load or copy (`strata copy`, `strata import`, `StoreCopier`) and a
/// migration — run no hooks. A nested context's save into its parent runs none either: the hooks
/// run when the parent saves to the store.
///
/// ```swift
/// var hooks = SaveHooks()
/// hooks.beforeValidation("trim names", Trip.self) { trip, _ in
///     trip.name = trip.name.trimmingCharacters(in: .whitespaces)
/// }
/// hooks.afterValidation("keep favourites", Trip.self) { trip, change in
///     if change.kind == .delete, change.original?["isFavorite"] == .bool(true) {
///         throw StrataError(.deleteDenied, "favourites are kept")
///     }
/// }
/// let store = try await Store.open("sqlite:app.sqlite", schema: schema, options: OpenOptions(hooks: hooks))
/// ```
/// ```
public struct SaveHooks: Sendable {
    struct Before: Sendable {
        let name: String
        let entity: String?
        let body: @Sendable (inout SaveChange) throws -> Void
    }

    struct After: Sendable {
        let name: String
        let entity: String?
        let body: @Sendable (SaveChange) throws -> Void
    }

    struct Committed: Sendable {
        let name: String
        let body: @Sendable (CommittedSave) -> Void
    }

    private(set) var before: [Before] = []
    private(set) var after: [After] = []
    private(set) var committed: [Committed] = []

    /// No hooks.
    public init() {}

    /// Whether there are no hooks (a save then does no hook work at all).
    public var isEmpty: Bool { before.isEmpty && after.isEmpty && committed.isEmpty }

    /// Whether a before- or after-validation hook sees the records of `entity` a save changes
    /// (such a hook reads what a delete removes, so a cascade loads those records whole).
    func reads(_ entity: String) -> Bool {
        before.contains { $0.entity == nil || $0.entity == entity }
            || after.contains { $0.entity == nil || $0.entity == entity }
    }

    /// Runs `body` before validation for each record of `entity` (of every entity when nil) a save
    /// inserts, updates or deletes; it may change `change.record` of an insert or update.
    public mutating func beforeValidation(
        _ name: String, entity: String? = nil, _ body: @escaping @Sendable (inout SaveChange) throws -> Void
    ) {
        before.append(Before(name: name, entity: entity, body: body))
    }

    /// Runs `body` after validation for each record of `entity` (every entity when nil) the save
    /// changes; throwing refuses the whole save.
    public mutating func afterValidation(
        _ name: String, entity: String? = nil, _ body: @escaping @Sendable (SaveChange) throws -> Void
    ) {
        after.append(After(name: name, entity: entity, body: body))
    }

    /// Runs `body` once per committed save, after it is durable, with its change set.
    public mutating func afterCommit(_ name: String, _ body: @escaping @Sendable (CommittedSave) -> Void) {
        committed.append(Committed(name: name, body: body))
    }

    /// A typed before-validation hook: `body` gets the inserted or updated model to change (a
    /// delete is not shown to it).
    public mutating func beforeValidation<M: PersistentModel>(
        _ name: String, _ type: M.Type, _ body: @escaping @Sendable (inout M, SaveChange) throws -> Void
    ) {
        beforeValidation(name, entity: M.entityName) { change in
            guard let record = change.record else { return }
            var model = try M(record: record)
            try body(&model, change)
            change.record = try model.record()
        }
    }

    /// A typed after-validation hook: `body` gets the model as it will be written (nil for a
    /// delete; `change.original` holds what is deleted) and may throw to refuse the save.
    public mutating func afterValidation<M: PersistentModel>(
        _ name: String, _ type: M.Type, _ body: @escaping @Sendable (M?, SaveChange) throws -> Void
    ) {
        afterValidation(name, entity: M.entityName) { change in
            try body(try change.record.map(M.init(record:)), change)
        }
    }
}

/// One record a save touches, as a hook sees it.
public struct SaveChange: Sendable {
    /// What the save does to the record.
    public enum Kind: Sendable, Hashable {
        /// A new record.
        case insert
        /// A changed record.
        case update
        /// A removed record (by the caller, a batch delete or a delete rule).
        case delete
    }

    /// What the save does to the record.
    public let kind: Kind
    /// The record's entity.
    public let entity: String
    /// The record's ID.
    public let id: RecordID
    /// The record as the save will write it (nil for a delete); a before-validation hook may
    /// change an insert's or an update's.
    public var record: Record?
    /// The record as stored before the save (nil for an insert).
    public let original: Record?
}

/// A committed save, as an after-commit hook sees it.
public struct CommittedSave: Sendable {
    /// The save's history token.
    public let token: HistoryToken
    /// Every change, in save order (what history records).
    public let changes: [HistoryChange]
    /// Who saved (the save's author, when given).
    public let author: String?
}
