/// Where a migration writes: into the store itself, in one write transaction, or into a copy of
/// it that replaces the store once complete (the engine's `MigrationPlan.strategy`).
///
/// Both end the same way — the same records, links, history and outbox (the conformance suite
/// checks that they are equal) — and both are atomic: a failure or a killed process leaves the old
/// store or the new one, never a mix, and a retry starts again.
public enum MigrationStrategy: Sendable, Hashable {
    /// In place, unless the backend says the store is too large for one write transaction (LMDB
    /// keeps every page a transaction writes in memory until it commits, up to a hard limit of
    /// about 512 MiB): then `shadowCopy(backup:)` without a backup. The default.
    case automatic
    /// In one write transaction on the store: nothing else to write on disk, but the transaction
    /// holds what it writes until it commits (the heap grows with the store on LMDB).
    case inPlace
    /// Into a copy of the store made beside it (`PATH.strata-shadow`), committing each batch of
    /// records, then one atomic rename puts the copy in the store's place. Memory is bounded by
    /// the batch; the disk needs room for a second copy while it runs. With `backup`, the old
    /// store is kept there (a file for SQLite and JSON, a directory for LMDB; replaced if present).
    ///
    /// A process killed during the copy leaves the old store, with a partial shadow beside it
    /// that the next migration removes; a retry copies again from the start. Only for backends
    /// that implement ``ShadowMigratingBackend``; others refuse it with
    /// ``StrataError/Code/unsupportedStore``.
    case shadowCopy(backup: String? = nil)
}
