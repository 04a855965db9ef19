/// A store or a context: where a service reads and writes, and how it commits its own unit of work.
///
/// A service generic over one `UnitOfWork` parameter reads through ``repository(_:)`` and groups
/// the writes that belong together in ``unitOfWork(_:)``. Given a ``Store``, each unit of work is
/// its own atomic save; given a ``ModelContext``, the service's units join the caller's, which
/// saves them all at once (the outermost unit commits, as a nested transaction does in Fluent):
///
/// ```swift
/// struct Tagging<Work: UnitOfWork> {
///     let work: Work
///
///     /// Tags a trip, creating the tag on first use; both writes commit together or not at all.
///     func tag(_ trip: Trip.ID, _ label: String) async throws {
///         try await work.unitOfWork { unit in
///             try await unit.repository(Tag.self).insertIfAbsent(Tag(id: label.lowercased(), label: label))
///             try await unit.repository(Trip.self).link(Trip.tags, from: trip, to: label.lowercased())
///         }
///     }
///
///     func tags(of trip: Trip.ID) async throws -> [Tag] {
///         try await work.repository(Trip.self).related(Trip.tags, of: trip)
///     }
/// }
///
/// func tagTwice(_ trip: Trip.ID, in store: Store) async throws {
///     try await Tagging(work: store).tag(trip, "Beach")      // one save
///     let context = store.makeContext()
///     let tagging = Tagging(work: context)
///     try await tagging.tag(trip, "Food")                     // staged here
///     try await tagging.tag(trip, "Museums")
///     try await context.save()                                // and both saved here
/// }
/// ```
///
/// A test hands the service an in-memory store (`try await Store.open("memory:", schema: schema)`).
public protocol UnitOfWork: Sendable {
    /// The repository of one model type here, as an existential — what ``repository(_:)`` returns in
    /// generic code. ``Store`` and ``ModelContext`` also have a `repository(_:)` returning their
    /// concrete repository, which concrete code gets.
    func anyRepository<Model: PersistentModel>(_ type: Model.Type) -> any ModelRepository<Model>

    /// Runs `body` as one unit of work and returns what it returns.
    ///
    /// On a ``Store``: `body` gets a new context (merge policy ``MergePolicy/error``); what it
    /// stages is saved atomically when it returns — delete rules, inverses, validation and history
    /// as for any save — and discarded when it throws. A save's error (a conflict, a broken rule) is
    /// thrown and nothing is written.
    ///
    /// On a ``ModelContext``: `body` gets the context itself and its changes stay pending for the
    /// context's owner to save; when `body` throws, the changes it made are undone and the
    /// context's earlier pending changes are kept (a savepoint). Let one task at a time use a
    /// context inside a unit of work: changes other tasks stage in it meanwhile are undone with
    /// the body's, and a save of the context while `body` runs makes the body's changes permanent.
    func unitOfWork<T: Sendable>(_ body: @Sendable (ModelContext) async throws -> T) async throws -> T
}

extension UnitOfWork {
    /// The repository of one model type here (see ``anyRepository(_:)``).
    public func repository<Model: PersistentModel>(_ type: Model.Type) -> any ModelRepository<Model> {
        anyRepository(type)
    }
}

extension Store: UnitOfWork {
    public func anyRepository<Model: PersistentModel>(_ type: Model.Type) -> any ModelRepository<Model> {
        repository(type)
    }

    public func unitOfWork<T: Sendable>(_ body: @Sendable (ModelContext) async throws -> T) async throws -> T {
        let context = makeContext()
        let value = try await body(context)
        try await context.save()
        return value
    }
}

extension ModelContext: UnitOfWork {
    public nonisolated func anyRepository<Model: PersistentModel>(_ type: Model.Type) -> any ModelRepository<Model> {
        repository(type)
    }

    public func unitOfWork<T: Sendable>(_ body: @Sendable (ModelContext) async throws -> T) async throws -> T {
        let savepoint = tracker
        let undoSavepoint = undoStacks
        let saves = savesCommitted
        do {
            return try await body(self)
        } catch {
            if savesCommitted == saves {
                tracker.restorePending(to: savepoint)
                undoStacks = undoSavepoint
                signalChange()
            }
            throw error
        }
    }
}
