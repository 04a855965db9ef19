import Foundation
import Strata

/// The initial sync of a new subscription: the records it covers, read from the server's snapshot
/// page by page and applied one page per local save, with the next page's position saved in the
/// same save — so a crash or a lost connection resumes at the page it stopped at. Changes made on
/// the server meanwhile come with the pulls that follow (they name every subscription).
extension SyncEngine {
    /// Runs every initial sync still owed; returns how many records they brought.
    func runBootstraps() async throws -> Int {
        var applied = 0
        let (configuration, options, schemaVersion) = (configuration, options, store.schema.version)
        var mark = bytesMoved.received
        var ahead = PageAhead<SnapshotRequest, SnapshotResponse>()
        defer { ahead.cancel() }
        while let bootstrap = try await store.backend.read({ try SubscriptionBook.read($0)?.bootstraps.first }) {
            let request = SnapshotRequest(
                clientID: configuration.clientID, position: bootstrap.position, limit: options.pullLimit,
                schemaVersion: schemaVersion, subscriptions: bootstrap.subscriptions)
            let page: SnapshotResponse
            if let fetched = await ahead.take(request) {
                attempts += 1
                page = fetched
            } else {
                page = try await call {
                    attempts += 1
                    return try await remote.snapshot(request)
                }
            }
            // The next page travels while this one is applied.
            if let next = page.next {
                var following = request
                following.position = next
                let (remote, sent) = (remote, following)
                ahead.start(sent) { try await remote.snapshot(sent) }
            }
            let bytes = bytesMoved.received - mark
            mark += bytes
            try await store.commit(
                author: nil, contextName: "sync", participants: [],
                stage: { session, reader -> (SyncApplier, SubscriptionBook)? in
                    // Another run may have applied this page meanwhile.
                    guard let book = try SubscriptionBook.read(reader), book.bootstraps.first == bootstrap else {
                        return nil
                    }
                    var applier = SyncApplier(session: session, configuration: configuration)
                    try Self.stage(page.records, in: reader, options: options, into: &applier)
                    return (applier, book)
                },
                afterCommit: { staged, _, transaction in
                    guard let (applier, staleBook) = staged else { return }
                    var book = staleBook
                    try Outbox.observe(page.records.map(\.timestamp), in: transaction)
                    try applier.finish(in: transaction)
                    try OwnerRefresh.note(applier.misplacedOwners.union(applier.arrivedListed), in: transaction)
                    // A client that never pulled continues from the first page's cursor: what it
                    // held then is unconfirmed until a snapshot page or a pull brings it.
                    let arrived = Set(page.records.map(\.key))
                    if try Outbox.cursor(in: transaction) == nil, let cursor = page.cursor {
                        try Outbox.setCursor(cursor, in: transaction)
                        try UnconfirmedRecords.noteHeld(except: arrived, configuration: configuration, in: transaction)
                    } else {
                        try UnconfirmedRecords.noted.forget(arrived, in: transaction)
                        if !page.records.isEmpty, let token = page.cursor?.value {
                            try SnapshotsAhead.note(token, past: try Outbox.cursor(in: transaction), in: transaction)
                        }
                    }
                    book.advance(past: page, bytes: bytes)
                    try book.write(transaction)
                })
            applied += page.records.count
            let names = bootstrap.subscriptions.filter { !$0.isFollowUp }.map(\.name)
            let received = bootstrap.received + page.records.count
            status.download = SyncProgress(
                phase: .subscribing(names), expected: (bootstrap.expected ?? page.expected).map { max($0, received) },
                completed: received, bytes: bootstrap.bytes + bytes)
            publish()
        }
        try await evictUnconfirmed()
        return applied
    }

    /// The client's pending mutations, by record.
    static func pendingMutations(in reader: any StorageReadTransaction) throws -> [RecordKey: [SyncMutation]] {
        var pending: [RecordKey: [SyncMutation]] = [:]
        if try Outbox.pendingCount(in: reader) > 0 {
            for mutation in try Outbox.wireMutations(in: reader) { pending[mutation.key, default: []].append(mutation) }
        }
        return pending
    }

    /// Stages pulled records (a pull's changes, a snapshot page), each resolved against the
    /// client's pending mutations of it.
    static func stage(
        _ records: [RemoteChange], in reader: any StorageReadTransaction, options: Options,
        into applier: inout SyncApplier
    ) throws {
        let pending = try pendingMutations(in: reader)
        applier.notePending(pending)
        try applier.prefetch(records)
        for change in records {
            if !change.isTombstone, !change.isEviction { try applier.noteUnconfirmed(change.key, in: reader) }
            if change.isEviction {
                // Unsent local changes keep the record until the server answers them.
                if pending[change.key]?.isEmpty ?? true { try applier.evict(change.key) }
            } else if let mine = pending[change.key], !mine.isEmpty {
                try applier.resolve(
                    change, pending: mine, policy: options.policies[change.entity] ?? options.defaultPolicy)
            } else {
                try applier.applyServerState(change)
            }
        }
        try applier.finishLinks()
    }
}

extension SubscriptionBook {
    /// Moves the first initial sync past `page`; when it was the last, its subscriptions are ready.
    mutating func advance(past page: SnapshotResponse, bytes: Int) {
        guard !bootstraps.isEmpty else { return }
        bootstraps[0].received += page.records.count
        bootstraps[0].bytes += bytes
        bootstraps[0].expected = bootstraps[0].expected ?? page.expected
        if let next = page.next {
            bootstraps[0].position = next
            return
        }
        let finished = Set(bootstraps.removeFirst().subscriptions.map(\.name))
        let owed = Set(bootstraps.flatMap { $0.subscriptions.map(\.name) })
        for index in entries.indices
        where finished.contains(entries[index].subscription.name) && !owed.contains(entries[index].subscription.name) {
            entries[index].ready = true
        }
    }

    /// Queues the initial sync of what the subscriptions reach from records that just arrived:
    /// a record that entered a subscription's coverage brings the records its followed
    /// relationships lead to, which the change feed alone would not (they did not change). Each
    /// following subscription asks for the arrived records its own filter matches, so a record
    /// another subscription brought does not bring what this one follows.
    mutating func follow(_ arrived: [RecordKey], coverage: SubscriptionCoverage) {
        var byEntity: [String: [RecordID]] = [:]
        for key in arrived where coverage.followers[key.entity] != nil {
            byEntity[key.entity, default: []].append(key.id)
        }
        for (entity, ids) in byEntity.sorted(by: { $0.key < $1.key }) {
            for follower in coverage.followers[entity] ?? [] {
                for start in stride(from: 0, to: ids.count, by: 100) {
                    let chunk = ids[start..<min(ids.count, start + 100)]
                    let literals = chunk.compactMap { try? SyncSubscription.literal($0.value, parameter: "id") }
                    let chosen = "id in [" + literals.joined(separator: ", ") + "]"
                    let subscription = SyncSubscription(
                        unchecked: "#follow.\(entity)", entity: entity,
                        filter: follower.filter.map { "\(chosen) && (\($0))" } ?? chosen, including: follower.paths)
                    bootstraps.append(Bootstrap(subscriptions: [subscription]))
                }
            }
        }
    }
}

extension SyncSubscription {
    /// A subscription built by the engine, its filter already text.
    /// Whether the engine made it to follow relationships from records that arrived.
    var isFollowUp: Bool { name.hasPrefix("#follow.") }

    init(unchecked name: String, entity: String, filter: String?, including: [String]) {
        (self.name, self.entity, self.filter, self.including, self.timeToLive) = (name, entity, filter, including, nil)
    }
}
