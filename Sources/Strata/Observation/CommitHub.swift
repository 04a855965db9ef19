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
    }

    private let backend: any StorageBackend
    private let state = Mutex(State())
    /// Transactions read per history read while catching up.
    static let batch = 256

    private init(backend: any StorageBackend) {
        self.backend = backend
    }

    private static let hubs = Mutex<[ObjectIdentifier: WeakHub]>([:])

    private struct WeakHub: Sendable {
        weak var hub: CommitHub?
    }

    /// The hub of `backend`: shared by every store over the same backend object.
    static func hub(for backend: any StorageBackend) -> CommitHub {
        guard type(of: backend) is AnyClass else { return CommitHub(backend: backend) }
        let key = ObjectIdentifier(backend as AnyObject)
        return hubs.withLock { table in
            if let hub = table[key]?.hub { return hub }
            let hub = CommitHub(backend: backend)
            table = table.filter { $0.value.hub != nil }
            table[key] = WeakHub(hub: hub)
            return hub
        }
    }

    /// How many observers are registered (cancelled observations are removed).
    var observerCount: Int { state.withLock { $0.subscribers.count } }

    /// Registers an observer that has seen everything up to `position` (nil: nothing).
    func subscribe(after position: HistoryToken?, _ deliver: @escaping @Sendable (Event) -> Void) -> UUID {
        let id = UUID()
        state.withLock { $0.subscribers[id] = Subscriber(position: position, deliver: deliver) }
        // Commits made between the observer's read and now are caught up at once.
        committed()
        return id
    }

    func unsubscribe(_ id: UUID) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
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
                    let transactions = try await backend.read { try HistoryLog.read(after: earliest, limit: Self.batch, in: $0) }
                    if !transactions.isEmpty {
                        deliver(transactions)
                        progressed = transactions.count == Self.batch
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
