import Foundation

/// A unit of work over a ``Store``: fetch models, change them, then `save()` everything at once —
/// atomically, through the same engine as every other save (delete rules, inverses, validation,
/// history), with conflicts against other writers detected by record version and resolved by the
/// context's ``MergePolicy``.
///
/// ```swift
/// let context = store.makeContext(name: "editor", mergePolicy: .objectTrumpByProperty)
/// guard var trip = try await context.fetch(Trip.self, id: tripID) else { return }
/// trip.name = "Lisbon 2027"
/// try await context.update(trip)
/// try await context.save()
/// ```
///
/// A context is an actor: share it between tasks freely. It remembers the version of every record
/// it reads; its fetches see its own pending changes; records it has not changed take the store's
/// new values when others commit (see `automaticallyMergesChanges` and `refreshes`).
///
/// Writes made without a context (``Repository``, ``Store/transaction(author:contextName:_:)``)
/// are last-writer-wins: they have no read to compare against.
public actor ModelContext {
    /// What the context knows about one record.
    struct Tracked {
        /// As last read from the store; `nil` for a record this context inserted.
        var base: Record?
        /// As this context sees it; `nil` once deleted here.
        var current: Record?
        /// Properties changed here, relative to `base`.
        var changed: Set<String>
        /// Bumped on every change here, so a save can tell what changed while it ran.
        var revision: Int
        /// Staged by `insertIfAbsent` and unchanged since: a save that finds the ID stored keeps the
        /// stored record, as `insertIfAbsent` outside a context does, instead of a conflict.
        var insertedIfAbsent = false

        var isPending: Bool { base == nil || current == nil || !changed.isEmpty }
    }

    struct Membership {
        var base: [RecordID]
        var desired: [RecordID]
        var revision: Int
    }

    /// The store this context reads from and saves to.
    public nonisolated let store: Store
    /// The context this one saves into (a nested context), or `nil` for one that saves to the store.
    public nonisolated let parent: ModelContext?
    /// Recorded as the context name of this context's history transactions.
    public nonisolated let name: String?
    /// Recorded as the author of this context's history transactions.
    public nonisolated let author: String?
    /// How conflicts are resolved at save.
    public var mergePolicy: MergePolicy
    /// When `true` (the default), every fetch and save first brings the records this context has
    /// not changed up to date with what others committed since it last looked.
    public var automaticallyMergesChanges = true
    /// What the latest merge of others' changes did; see also `refreshes`.
    public internal(set) var lastRefresh: ContextRefresh?
    /// Every non-empty merge of others' changes into this context, as it happens.
    public nonisolated let refreshes: AsyncStream<ContextRefresh>

    /// The records read and changed here, and the memberships changed.
    var tracker = ContextTracker()
    /// The undo and redo stacks (recording is off until `setUndoEnabled(true)`).
    var undoStacks = ContextUndo()
    /// The history position this context has caught up with.
    var lastSeenToken: HistoryToken?
    var hasSeenStore = false
    var saveTurns = TurnTaking()
    /// Saves that wrote something, so a nested unit of work can tell that its savepoint is gone.
    var savesCommitted = 0
    /// Observations of this context, woken when its pending changes change.
    var changeSignals: [UUID: AsyncStream<Void>.Continuation] = [:]
    let refreshContinuation: AsyncStream<ContextRefresh>.Continuation

    init(store: Store, name: String?, author: String?, mergePolicy: MergePolicy, parent: ModelContext? = nil) {
        self.store = store
        self.parent = parent
        self.name = name
        self.author = author
        self.mergePolicy = mergePolicy
        (refreshes, refreshContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    deinit { refreshContinuation.finish() }

    /// Changes `mergePolicy`.
    public func setMergePolicy(_ policy: MergePolicy) { mergePolicy = policy }

    /// Turns `automaticallyMergesChanges` on or off.
    public func setAutomaticallyMergesChanges(_ value: Bool) { automaticallyMergesChanges = value }
}

extension Store {
    /// A new unit of work over this store.
    ///
    /// - Parameters:
    ///   - name: Recorded in history as the context name of its saves.
    ///   - author: Recorded in history as the author of its saves.
    ///   - mergePolicy: How conflicts are resolved at save; ``MergePolicy/error`` by default.
    public func makeContext(name: String? = nil, author: String? = nil, mergePolicy: MergePolicy = .error)
        -> ModelContext
    {
        ModelContext(store: self, name: name, author: author, mergePolicy: mergePolicy)
    }
}
