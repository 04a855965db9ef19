/// A backend whose stored layout can change inside one write transaction: the primitive a
/// migration runs on (`Store.open(_:schema:options:)`).
///
/// The engine decides everything a migration means — which records move where, renames, defaults,
/// link lists, custom stages, checks, history — and writes the data with ordinary puts, so every
/// backend migrates identically. The backend only moves storage: it sets aside the tables (or
/// databases, or document sections) of the entities being rebuilt, creates empty ones in the new
/// layout, lets the engine copy, then drops what it set aside.
///
/// ## Contract
/// - `changeSchema(_:)` runs its closure in **one** write transaction: returning commits every
///   change (the engine writes the last target's ``SchemaDescription`` under
///   ``SchemaDescription/metadataKey`` inside the closure, as it does for a new store; a backend
///   that keeps its own record of the shape updates it here); throwing leaves the store exactly as
///   it was, on disk and in this process. A process killed at any moment leaves the old store or
///   the new one.
/// - Inside it, ``SchemaChangeTransaction/change(to:rebuilding:creating:reindexing:_:)`` may be called several
///   times (a plan's chain of stages); each sees the layout the previous one left.
/// - After a successful change the handle is closed by the engine and the store reopened with
///   the new schema; the handle need not serve other calls with the new layout.
public protocol SchemaChangingBackend: StorageBackend {
    /// Runs `body` in one write transaction in which the layout can change (see the protocol).
    func changeSchema<T: Sendable>(_ body: @escaping @Sendable (any SchemaChangeTransaction) throws -> T) async throws
        -> T

    /// Who else has the store open — another process, or a session from another machine — as
    /// far as the backend can tell, in words for an error ("process 4711"); `nil` when no one
    /// else is seen. The engine refuses an in-place migration (``StrataError/Code/storeInUse``)
    /// while it is not `nil`: a process still on the old schema would go on reading and writing
    /// a store whose shape changed under it. Asked just before the migration's write
    /// transaction; it must change nothing. The default sees no one (a store only this process
    /// can open).
    func holderElsewhere() async throws -> String?
}

extension SchemaChangingBackend {
    public func holderElsewhere() async throws -> String? { nil }
}

/// The write transaction of a ``SchemaChangingBackend/changeSchema(_:)``. Lives only for its closure.
public protocol SchemaChangeTransaction: AnyObject {
    /// The schema the store has at this point of the transaction.
    var schema: Schema { get }
    /// The store in `schema`'s layout: metadata (history, sync state) is read and written here.
    var current: any StorageWriteTransaction { get }

    /// Moves the store from `schema` to `target`, then makes `target` the current schema.
    ///
    /// - Parameters:
    ///   - target: The schema the store has when `body` returns.
    ///   - retired: Entities of `schema` whose storage goes (rebuilt under `target`, or removed).
    ///     Before `body` their storage is set aside, readable through `body`'s first transaction;
    ///     after it, dropped.
    ///   - created: Entities of `target` that get new, empty storage before `body` (every entity of
    ///     `target` not in `schema` with the same name and an equal description, nor reindexed).
    ///   - reindexed: Entities whose records stay exactly as stored but whose indexes change
    ///     (attribute indexes, composite indexes, unique constraints): before `body`, the backend
    ///     drops the indexes `target` no longer declares and builds the new ones from the records.
    ///   - body: Reads the store as it was through its first argument (in `schema`'s layout;
    ///     entities neither retired nor created read their live storage) and writes the new layout
    ///     through the second (in `target`'s). Metadata is shared by both.
    ///
    /// Entities of `target` in neither set have the same name and an equal description in
    /// `schema` and keep their storage as it is; the engine guarantees it.
    func change(
        to target: Schema, rebuilding retired: Set<String>, creating created: Set<String>,
        reindexing reindexed: Set<String>,
        _ body: (_ old: any StorageReadTransaction, _ new: any StorageWriteTransaction) throws -> Void
    ) throws

    /// Called by the engine after each batch it wrote. On a shadow copy
    /// (``ShadowMigratingBackend``) it commits what is written so far and continues in a new
    /// write transaction, keeping what was set aside, so memory stays bounded by the batch; on a
    /// store migrated in place it does nothing (the default).
    func checkpoint() throws
}

extension SchemaChangeTransaction {
    public func checkpoint() throws {}
}
