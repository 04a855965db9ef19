import Foundation
import Synchronization

/// Hands every commit of a store to its observers, once each, in token order.
///
/// A commit wakes the hub; the hub then reads history after the earliest position any observer
/// has reached — one read for all observers — and delivers each transaction to every observer
/// that has not seen it. Reading history rather than forwarding what the saver had in hand keeps
/// the order and the exactly-once promise whatever the order in which concurrent saves return,
/// and it lets commits the hub did not see being made (another store on the same backend, later
/// another process) arrive the same way. With no observers a commit costs nothing.
///
/// One hub per backend instance (``hub(for:)``), so every ``Store`` over it shares its observers.
/// Hubs of handles with the same ``StorageBackend/sharedIdentity`` wake each other at commit; a
/// backend other processes write to is polled (``StorageBackend/externalCommits``) while the hub
/// has observers.
final class CommitHub: Sendable {
    /// What an observer receives.
    enum Event: Sendable {
        /// A committed transaction after the observer's position.
        case committed(HistoryTransaction)
        /// History between the observer's position and the next available entry was purged:
        /// the observer cannot know what changed and must re-read.
        case gap(through: HistoryToken)
        /// History could not be read (the store closed, a damaged entry): observers re-read,
        /// which reports the error to them, or end.
        case failed(any Error)
    }

    private struct Subscriber {
        var position: HistoryToken?
        let deliver: @Sendable (Event) -> Void
    }

    private struct State {
        var subscribers: [UUID: Subscriber] = [:]
        var draining = false
        var wokenWhileDraining = false
        /// Asks whether another process committed, while there are observers.
        var poller: Task<Void, Never>?
    }

    private let backend: any StorageBackend
    private let state = Mutex(State())
    /// Transactions read per history read while catching up.
    static let batch = 256

    private init(backend: any StorageBackend) {
        self.backend = backend
    }

    private static let hubs = Mutex<[ObjectIdentifier: WeakHub]>([:])
    /// Hubs by the shared identity of their backend: handles onto the same data in this process.
    private static let peers = Mutex<[String: [WeakHub]]>([:])

    private struct WeakHub: Sendable {
        weak var hub: CommitHub?
    }

    /// The hub of `backend`: shared by every store over the same backend object.
    static func hub(for backend: any StorageBackend) -> CommitHub {
        guard type(of: backend) is AnyClass else { return CommitHub(backend: backend) }
        let key = ObjectIdentifier(backend as AnyObject)
        let (hub, created) = hubs.withLock { table -> (CommitHub, Bool) in
            if let hub = table[key]?.hub { return (hub, false) }
            let hub = CommitHub(backend: backend)
            table = table.filter { $0.value.hub != nil }
            table[key] = WeakHub(hub: hub)
            return (hub, true)
        }
        if created, let identity = backend.sharedIdentity {
            peers.withLock { table in
                table[identity, default: []].removeAll { $0.hub == nil }
                table[identity, default: []].append(WeakHub(hub: hub))
            }
        }
        return hub
    }

    /// A commit made through this hub's backend: its observers and those of every other handle
    /// onto the same data in this process.
    func committedHere() {
        committed()
        guard let identity = backend.sharedIdentity else { return }
        let others = Self.peers.withLock { table in (table[identity] ?? []).compactMap(\.hub).filter { $0 !== self } }
        for hub in others { hub.committed() }
    }

    /// How many observers are registered (cancelled observations are removed).
    var observerCount: Int { state.withLock { $0.subscribers.count } }

    /// Registers an observer that has seen everything up to `position` (nil: nothing).
    func subscribe(after position: HistoryToken?, _ deliver: @escaping @Sendable (Event) -> Void) -> UUID {
        let id = UUID()
        let polling = backend.externalCommits
        state.withLock { state in
            state.subscribers[id] = Subscriber(position: position, deliver: deliver)
            if let polling, state.poller == nil { state.poller = poll(polling) }
        }
        // Commits made between the observer's read and now are caught up at once.
        committed()
        return id
    }

    func unsubscribe(_ id: UUID) {
        let poller = state.withLock { state -> Task<Void, Never>? in
            state.subscribers.removeValue(forKey: id)
            guard state.subscribers.isEmpty else { return nil }
            defer { state.poller = nil }
            return state.poller
        }
        poller?.cancel()
    }

    /// Asks the backend every interval whether another process committed, until cancelled (the
    /// last observer left). The first answer only records the state; the history read after it
    /// catches up whatever committed before.
    private func poll(_ polling: ExternalCommitPolling) -> Task<Void, Never> {
        Task { [weak self] in
            do {
                _ = try await polling.mayHaveCommitted()
                self?.committed()
                while !Task.isCancelled {
                    try await Task.sleep(for: polling.interval)
                    if try await polling.mayHaveCommitted() { self?.committed() }
                }
            } catch {
                // Cancelled, or the backend cannot answer (closed): one last read reports it.
                if !Task.isCancelled { self?.committed() }
            }
        }
    }

    /// Something committed (or may have): deliver what observers have not seen.
    func committed() {
        let start = state.withLock { state -> Bool in
            guard !state.subscribers.isEmpty else { return false }
            if state.draining {
                state.wokenWhileDraining = true
                return false
            }
            state.draining = true
            return true
        }
        guard start else { return }
        Task { await self.drain() }
    }

    private func drain() async {
        while true {
            let positions = state.withLock { state -> [UUID: HistoryToken?] in
                state.wokenWhileDraining = false
                return state.subscribers.mapValues(\.position)
            }
            var progressed = false
            if !positions.isEmpty {
                let earliest = positions.values.min { ($0?.value ?? 0) < ($1?.value ?? 0) } ?? nil
                do {
                    let (transactions, last) = try await backend.read { transaction in
                        (try HistoryLog.read(after: earliest, limit: Self.batch, in: transaction), try HistoryLog.lastToken(in: transaction))
                    }
                    if !transactions.isEmpty {
                        deliver(transactions)
                        progressed = transactions.count == Self.batch
                    } else if let last {
                        // Every entry after the earliest position was purged, the last one included.
                        deliverGap(through: last)
                    }
                } catch {
                    for subscriber in state.withLock({ Array($0.subscribers.values) }) { subscriber.deliver(.failed(error)) }
                }
            }
            let again = state.withLock { state -> Bool in
                if progressed || state.wokenWhileDraining, !state.subscribers.isEmpty { return true }
                state.draining = false
                return false
            }
            if !again { return }
        }
    }

    /// Observers behind `token` with no history left to read: they must re-read.
    private func deliverGap(through token: HistoryToken) {
        let behind = state.withLock { state in state.subscribers.filter { ($0.value.position?.value ?? 0) < token.value } }
        for (_, subscriber) in behind { subscriber.deliver(.gap(through: token)) }
        state.withLock { state in
            for id in behind.keys where state.subscribers[id] != nil { state.subscribers[id]?.position = token }
        }
    }

    /// The backend was closed: every observer ends (re-reading reports ``StrataError/Code/storeClosed``).
    func closed() {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.deliver(.failed(StrataError(.storeClosed, "the store has been closed"))) }
    }

    /// Hands each subscriber the transactions after its position, in order, and moves it on.
    private func deliver(_ transactions: [HistoryTransaction]) {
        let subscribers = state.withLock { $0.subscribers }
        var moved: [UUID: HistoryToken] = [:]
        for (id, subscriber) in subscribers {
            let position = subscriber.position?.value ?? 0
            let unseen = transactions.filter { $0.token.value > position }
            guard let first = unseen.first, let last = unseen.last else { continue }
            // Tokens are consecutive: a first unseen token past the next one means purged history.
            if first.token.value > position + 1 { subscriber.deliver(.gap(through: HistoryToken(first.token.value - 1))) }
            for transaction in unseen { subscriber.deliver(.committed(transaction)) }
            moved[id] = last.token
        }
        state.withLock { state in
            for (id, token) in moved where state.subscribers[id] != nil { state.subscribers[id]?.position = token }
        }
    }
}
