import Foundation
import Strata

/// Pulling the server's changes after the cursor and applying them without echo.
extension SyncEngine {
    func pullAll() async throws -> (count: Int, conflicts: Int) {
        var total = 0
        var conflicts = 0
        let (limit, configuration, options) = (options.pullLimit, configuration, options)
        // A reset a crash interrupted finishes first.
        if try await store.backend.read({ try ResetState.read($0) }) != nil {
            total += try await resetFromSnapshot()
        }
        try await expireSubscriptions()
        total += try await runBootstraps()
        let schema = store.schema
        var moved = false
        var changes = 0
        let bytesBefore = bytesMoved.received
        var ahead = PageAhead<PullRequest, PullResponse>()
        defer { ahead.cancel() }
        var resets = 0
        var waitMillis = options.pullWait.map {
            Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)
        }
        while true {
            let (cursor, book, snapshots) = try await store.backend.read {
                (try Outbox.cursor(in: $0), try SubscriptionBook.read($0), try SnapshotsAhead.read($0))
            }
            let coverage = try book.map { try SubscriptionCoverage($0.active, schema: schema) }
            var request = PullRequest(
                clientID: configuration.clientID, cursor: cursor, limit: limit, schemaVersion: store.schema.version,
                waitMillis: waitMillis, subscriptions: book.map { $0.active.map(\.served) })
            request.snapshotsAt = Self.snapshots(snapshots, past: cursor)
            // Only the first request of a drain waits: once changes flow, the rest follow at once.
            waitMillis = nil
            let response: PullResponse
            do {
                response = try await fetch(request, ahead: &ahead)
            } catch  where Self.requiresReset(error) {
                // A second reset in one drain means the server cannot serve even a fresh
                // snapshot's cursor: stop rather than loop.
                resets += 1
                guard resets <= 2 else { throw error }
                total += try await resetFromSnapshot()
                continue
            }
            // The next page travels while this one is applied.
            if response.hasMore, let next = response.cursor, next != cursor {
                var following = request
                following.cursor = next
                following.snapshotsAt = Self.snapshots(snapshots, past: next)
                let (remote, sent) = (remote, following)
                ahead.start(sent) { try await remote.pull(sent) }
            }
            // Applying a peer's changes takes no participants: the outbox must not echo them.
            let found = try await store.commit(
                author: nil, contextName: "sync", participants: [],
                stage: { session, reader -> SyncApplier? in
                    // Another pull may have moved the cursor meanwhile; apply only from where we asked.
                    guard try Outbox.cursor(in: reader) == cursor else { return nil }
                    var applier = SyncApplier(session: session, configuration: configuration)
                    try Self.stage(response.changes, in: reader, options: options, into: &applier)
                    return applier
                }
            ) { applier, _, transaction -> Int in
                guard let applier else { return 0 }
                try Outbox.observe(response.changes.map(\.timestamp), in: transaction)
                try applier.finish(in: transaction)
                try OwnerRefresh.note(
                    applier.restored.union(applier.misplacedOwners).union(coverage == nil ? [] : applier.arrivedListed),
                    in: transaction)
                try Outbox.setCursor(response.cursor, in: transaction)
                try SnapshotsAhead.forget(upTo: response.cursor, in: transaction)
                try UnconfirmedRecords.noted.forget(Set(response.changes.map(\.key)), in: transaction)
                // Records that entered a relationship-following subscription bring what it follows:
                // those that arrived, and those held already that a change may have brought into a
                // following subscription's filter (a trip another subscription brought, now dear).
                let entered = response.changes.filter { !$0.isTombstone && !$0.isEviction }.map(\.key)
                if let coverage, !coverage.followed.isEmpty, !entered.isEmpty,
                    var book = try SubscriptionBook.read(transaction)
                {
                    book.follow(entered, coverage: coverage)
                    try book.write(transaction)
                }
                return applier.conflicts
            }
            conflicts += found
            total += response.changes.count
            changes += response.changes.count
            status.download = SyncProgress(
                phase: .changes, expected: nil, completed: changes, bytes: bytesMoved.received - bytesBefore)
            publish()
            moved = moved || !response.changes.isEmpty
            guard response.hasMore, response.cursor != cursor else { break }
        }
        // What a subscription reaches through relationships may have left it without changing.
        if moved, try await evictDependents() { total += try await runBootstraps() }
        // Records a pulled record's win over a local delete brought back, read with their owners.
        total += try await refreshOwners()
        return (total, conflicts)
    }

    /// The snapshot tokens a pull from `cursor` names (``SnapshotsAhead``): those past it, or nil.
    static func snapshots(_ tokens: [Int64], past cursor: SyncCursor?) -> [Int64]? {
        let past = tokens.filter { token in cursor.map { token > $0.value } ?? false }
        return past.isEmpty ? nil : past
    }

    /// The page for `request`: the one fetched ahead for it, or asked for now.
    private func fetch(_ request: PullRequest, ahead: inout PageAhead<PullRequest, PullResponse>) async throws
        -> PullResponse
    {
        if let fetched = await ahead.take(request) {
            attempts += 1
            return fetched
        }
        return try await call {
            attempts += 1
            return try await remote.pull(request)
        }
    }

    /// One push or pull at a time per engine (the outbox and the cursor are read, then updated).
}
