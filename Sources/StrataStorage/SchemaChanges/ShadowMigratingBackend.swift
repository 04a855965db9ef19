/// A ``SchemaChangingBackend`` whose store can be migrated as a copy that then replaces it
/// (``MigrationStrategy/shadowCopy(backup:)``): the way to migrate a store too large for one
/// write transaction, and to keep the old one as a backup.
///
/// ## Contract
/// - `makeShadowCopy()` writes a consistent copy of the whole store (records, links, indexes,
///   history, metadata) beside it, removing any copy a killed earlier migration left, and opens it
///   with this handle's schema. Nothing else may open the copy.
/// - On the copy's handle, ``SchemaChangingBackend/changeSchema(_:)`` behaves as on any store,
///   except that ``SchemaChangeTransaction/checkpoint()`` commits what the transaction wrote so
///   far: the engine calls it after every batch, so memory is bounded by the batch. (A failure
///   after a checkpoint leaves the copy half-migrated; the engine then discards it.)
/// - ``ShadowCopy/install(backup:)`` is called once both handles are closed. It puts the copy in
///   the store's place by one atomic rename, after making `backup` (when given) hold the old
///   store: a process killed at any moment leaves the old store or the migrated one at the
///   store's path. It refuses, leaving everything as it was, when another handle (in this process
///   or another) still has the store open.
public protocol ShadowMigratingBackend: SchemaChangingBackend {
    /// Whether ``MigrationStrategy/automatic`` should migrate this store through a shadow copy
    /// (it is too large for one write transaction).
    func prefersShadowCopy() async throws -> Bool
    /// A copy of the store beside it, opened with this handle's schema (see the protocol).
    func makeShadowCopy() async throws -> ShadowCopy
}

/// The copy a ``ShadowMigratingBackend`` made of its store, and how it replaces the store.
public struct ShadowCopy: Sendable {
    /// The copy, opened with the store's schema; the engine migrates it, then closes it.
    public let backend: any SchemaChangingBackend
    /// Where the copy is (for messages).
    public let path: String
    private let installing: @Sendable (_ backup: String?) async throws -> Void
    private let discarding: @Sendable () async -> Void

    /// A copy at `path`, opened as `backend`; `install` and `discard` as the protocol describes.
    public init(
        backend: any SchemaChangingBackend, path: String,
        install: @escaping @Sendable (_ backup: String?) async throws -> Void,
        discard: @escaping @Sendable () async -> Void
    ) {
        self.backend = backend
        self.path = path
        self.installing = install
        self.discarding = discard
    }

    /// The copy a backend makes in its ``ShadowMigratingBackend/makeShadowCopy()``: removes what
    /// `files` name (a copy a killed migration left), runs `write` to copy the store to `path`,
    /// then `open` to open it. Any failure removes `files` again and rethrows; so does
    /// `discard()`.
    public static func make(
        at path: String, files: [String], write: () async throws -> Void,
        open: () async throws -> any SchemaChangingBackend,
        install: @escaping @Sendable (_ backup: String?) async throws -> Void
    ) async throws -> ShadowCopy {
        StoreFiles.remove(files)
        do {
            try await write()
            return ShadowCopy(
                backend: try await open(), path: path, install: install, discard: { StoreFiles.remove(files) })
        } catch {
            StoreFiles.remove(files)
            throw error
        }
    }

    /// Puts the closed copy in the closed store's place, the old store at `backup` when given.
    public func install(backup: String?) async throws { try await installing(backup) }
    /// Removes the copy (after a failure); the store is untouched.
    public func discard() async { await discarding() }
}
