import Foundation
import Strata

/// The client side of offline-first sync: pushes the store's outbox to a ``SyncRemote`` and pulls
/// the server's changes into the store.
///
/// ```swift
/// let store = try await Store.open(
///     "sqlite:./app.sqlite", schema: schema, options: OpenOptions(sync: SyncConfiguration()))
/// let engine = try SyncEngine(store: store, remote: InProcessTransport(server: server),
///                             options: .init(policies: ["Trip": .lastWriterWins]))
/// await engine.start()                       // background loop with backoff; or:
/// try await engine.syncNow()
/// for await status in await engine.statusUpdates() { print(status.pendingCount) }
/// ```
///
/// - **Push** sends the outbox in commit order, in batches of at most ``Options/batchSize``.
///   Mutations leave the outbox only when the server acknowledges them (applied, already applied,
///   or rejected). Rejections are kept in `rejections` and the record's server state is restored
///   locally. A mutation is never dropped silently.
/// - **Pull** applies the server's changes after the stored cursor in one local save that writes
///   no outbox entries (no echo). A pulled record with pending local mutations is resolved by the
///   entity's ``SyncClientConflictPolicy``.
/// - `syncNow()` pushes, then pulls — and pulls even when the push failed, so an upload outage
///   does not stop downloads. Local writes never wait for the network.
public actor SyncEngine {
    /// How the engine batches, resolves conflicts, retries and waits.
    public struct Options: Sendable {
        /// At most this many mutations per push.
        public var batchSize: Int
        /// At most this many server transactions per pull request.
        public var pullLimit: Int
        /// Per-entity conflict policies for pulled records with pending local mutations.
        public var policies: [String: SyncClientConflictPolicy]
        /// The policy of entities not in `policies`.
        public var defaultPolicy: SyncClientConflictPolicy
        /// Backoff for the background loop.
        public var retry: RetryPolicy
        /// How the engine waits when a server asks it to (`429`/`408` with `Retry-After`);
        /// injectable so tests need no real sleeps.
        public var sleep: @Sendable (Duration) async throws -> Void
        /// How many such waits one call may take before it fails (they do not spend the
        /// background loop's backoff).
        public var maximumServerWaits: Int
        /// A long poll: how long a pull may wait at the server for a change (`nil`: never).
        public var pullWait: Duration?
        /// Whether ``SyncEngine/syncNow()`` downloads the bytes of files pulled records refer to
        /// (otherwise only ``SyncEngine/download(_:)`` does, on demand).
        public var downloadsFiles = true

        /// Options; every one has a default.
        public init(
            batchSize: Int = 500, pullLimit: Int = 500, policies: [String: SyncClientConflictPolicy] = [:],
            defaultPolicy: SyncClientConflictPolicy = .propertyMerge, retry: RetryPolicy = RetryPolicy(),
            sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
            maximumServerWaits: Int = 8, pullWait: Duration? = nil
        ) {
            self.batchSize = max(1, batchSize)
            self.pullLimit = max(1, pullLimit)
            self.policies = policies
            self.defaultPolicy = defaultPolicy
            self.retry = retry
            self.sleep = sleep
            self.maximumServerWaits = max(0, maximumServerWaits)
            self.pullWait = pullWait
        }
    }

    /// The local store whose outbox is pushed.
    public nonisolated let store: Store
    /// Where mutations are pushed and changes pulled from.
    public nonisolated let remote: any SyncRemote
    /// The options the engine runs with.
    public nonisolated let options: Options
    let configuration: SyncConfiguration

    /// Where the engine stands now.
    public internal(set) var status = SyncStatus()
    /// Mutations the server refused, oldest first (their records were restored from the server).
    public internal(set) var rejections: [SyncRejection] = []
    /// How many push and pull round trips were made (successful or not).
    public internal(set) var attempts = 0
    private var watchers: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    private var loop: Task<Void, Never>?
    private var turns = TurnTaking()

    /// An engine for a store opened with a `SyncConfiguration`; a store without one is
    /// `StrataError.Code.unsupportedStore`.
    public init(store: Store, remote: any SyncRemote, options: Options = Options()) throws {
        guard let configuration = store.sync else {
            throw StrataError(.unsupportedStore, "sync is not enabled on this store: open it with a SyncConfiguration")
        }
        guard !configuration.clientID.isEmpty else { throw SyncConfiguration.unresolved("a sync engine") }
        self.store = store
        self.remote = remote
        self.options = options
        self.configuration = configuration
    }

    // MARK: Status

    /// A stream of status changes, starting with the current status: the state a UI shows
    /// (``SyncStatus/state``), download and upload progress, pending mutations, the last error.
    /// A consumer that falls more than 256 changes behind loses the oldest, never the newest.
    public func statusUpdates() -> AsyncStream<SyncStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncStatus.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        watchers[id] = continuation
        continuation.yield(status)
        continuation.onTermination = { _ in Task { await self.removeWatcher(id) } }
        return stream
    }

    private func removeWatcher(_ id: UUID) { watchers[id] = nil }

    func publish() {
        for continuation in watchers.values { continuation.yield(status) }
    }

    /// Reads the outbox size and cursor into `status`.
    @discardableResult
    public func refreshStatus() async throws -> SyncStatus {
        let (pending, cursor) = try await store.backend.read {
            (try Outbox.pendingCount(in: $0), try Outbox.cursor(in: $0))
        }
        status.pendingCount = pending
        status.lastSyncedCursor = cursor
        publish()
        return status
    }

    /// The mutations waiting in the outbox, oldest first.
    public func pendingMutations(limit: Int? = nil) async throws -> [SyncMutation] {
        try await store.backend.read { try Outbox.wireMutations(in: $0, limit: limit) }
    }

    // MARK: Sync

    /// Pushes the whole outbox, then pulls everything new. The pull runs even when the push
    /// failed; the first error is rethrown after both.
    @discardableResult
    public func syncNow() async throws -> SyncReport {
        await beginRun()
        defer { endRun() }
        var report = SyncReport()
        var failure: (any Error)?
        do {
            let pushed = try await instrumentedPush()
            report.pushed = pushed.count
            report.rejected = pushed.rejected
        } catch {
            failure = error
        }
        do {
            let pulled = try await instrumentedPull()
            report.pulled = pulled.count
            report.conflicts = pulled.conflicts
            if options.downloadsFiles { report.filesDownloaded = try await downloadMissingFiles().downloaded }
        } catch {
            failure = failure ?? error
        }
        try await refreshStatus()
        if let failure {
            status.lastError = Self.describe(failure)
            status.lastErrorKind = (failure as? SyncTransportError)?.kind
            status.failures += 1
            publish()
            throw failure
        }
        status.lastError = nil
        status.lastErrorKind = nil
        status.failures = 0
        status.nextRetry = nil
        publish()
        return report
    }

    /// Pushes the outbox in batches until it is empty; returns how many mutations were acknowledged.
    @discardableResult
    public func push() async throws -> Int {
        await beginRun()
        defer { endRun() }
        let result = try await instrumentedPush()
        try await refreshStatus()
        return result.count
    }

    /// Pulls and applies everything after the stored cursor; returns how many records changed.
    @discardableResult
    public func pull() async throws -> Int {
        await beginRun()
        defer { endRun() }
        let result = try await instrumentedPull()
        try await refreshStatus()
        return result.count
    }

    func beginRun() async {
        if !turns.tryTake() { await withCheckedContinuation { turns.enqueue($0) } }
        status.isSyncing = true
        publish()
    }

    func endRun() {
        status.isSyncing = false
        status.download = nil
        status.upload = nil
        publish()
        turns.release()
    }

    /// Bytes the remote moved so far, when it counts them (zero otherwise).
    var bytesMoved: (sent: Int, received: Int) { (remote as? any SyncTrafficCounting)?.traffic ?? (0, 0) }

    // MARK: Background loop

    /// Starts syncing in the background: `syncNow()` every ``RetryPolicy/interval``, and after a
    /// failure again after an exponential backoff with jitter (published as ``SyncStatus/nextRetry``).
    /// Call `stop()` to end it.
    public func start() {
        guard loop == nil else { return }
        loop = Task { await self.runLoop() }
    }

    /// Stops the background loop (a sync under way finishes first).
    public func stop() async {
        let task = loop
        loop = nil
        task?.cancel()
        await task?.value
    }

    private func runLoop() async {
        var failures = 0
        while !Task.isCancelled {
            let wait: Duration
            do {
                try await syncNow()
                failures = 0
                wait = options.retry.interval
            } catch {
                failures += 1
                wait = options.retry.delay(afterFailures: failures)
                let seconds = Double(wait.components.seconds) + Double(wait.components.attoseconds) / 1e18
                status.nextRetry = Date().addingTimeInterval(seconds)
                publish()
            }
            do {
                try await Task.sleep(for: wait)
            } catch {
                break
            }
        }
    }
}
