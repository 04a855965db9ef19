/// How commits made outside one backend handle reach the observers of the stores over it.
///
/// A commit through a handle wakes that handle's observers at once. Two more sources exist:
/// - **Another handle on the same data in this process** (a second `Store` opened on the same
///   path, a reopened in-memory database): handles that report the same ``StorageBackend/sharedIdentity``
///   wake each other's observers when they commit, with no polling.
/// - **Another process** (or machine): a backend whose data others can write declares
///   ``StorageBackend/externalCommits``; while a store over it has observers, the engine asks
///   its cheap question every ``ExternalCommitPolling/interval`` and, on a yes, reads history
///   after the observers' position like for any commit. With no observers nothing polls.
///
/// Either way observers read the commits through history, so order and exactly-once delivery
/// hold whoever committed.
public struct ExternalCommitPolling: Sendable {
    /// How often to ask while the store has observers: the most an observer waits for another
    /// process's commit, plus the history read.
    public var interval: Duration
    /// Whether another process may have committed since the last call (the first call records
    /// the current state). A spurious yes costs one history read that finds nothing; a missed
    /// commit is a bug. A yes must be about what a read begun after it sees: a yes for a commit
    /// readers cannot see yet is followed by a read that finds nothing, and the commit is missed.
    public var mayHaveCommitted: @Sendable () async throws -> Bool

    /// Polls every `interval` with `mayHaveCommitted`, which answers cheaply whether another process may have committed
    /// since the last call.
    public init(interval: Duration, mayHaveCommitted: @escaping @Sendable () async throws -> Bool) {
        self.interval = interval
        self.mayHaveCommitted = mayHaveCommitted
    }

    /// The default wait between two questions.
    public static let defaultInterval: Duration = .milliseconds(50)
}

extension StorageBackend {
    /// Nil: no other handle in this process shares this backend's data.
    public var sharedIdentity: String? { nil }
    /// Nil: no other process can commit to this backend's data.
    public var externalCommits: ExternalCommitPolling? { nil }
}
