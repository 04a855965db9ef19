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
/// One hub per backend instance (`hub(for:)`), so every ``Store`` over it shares its observers.
/// Hubs of handles with the same `StorageBackend.sharedIdentity` wake each other at commit; a
/// backend other processes write to is polled (`StorageBackend.externalCommits`) while the hub
/// has observers.
package final class CommitHub: Sendable {
    /// What an observer receives.
    package enum Event: Sendable {
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
        /// The entities whose changes it needs (nil: all); a commit touching none of them is
        /// passed over without a history read.
        let entities: Set<String>?
        let deliver: @Sendable (Event) -> Void
    }

    /// What the commit funnel knows of a commit it made.
    package struct Commit: Sendable {
        let token: HistoryToken
        let entities: Set<String>
    }

    private struct State {
        var subscribers: [UUID: Subscriber] = [:]
        /// Every subscriber has seen everything through `floor` it needs: its position is the
        /// later of its own and this. Commits nobody needs move it on in O(1).
        var floor: Int64 = 0
        /// How many subscribers need each entity, and how many need every commit.
        var interest: [String: Int] = [:]
        var everything = 0
        var draining = false
        var wokenWhileDraining = false
        /// Asks whether another process committed, while there are observers.
        var poller: Task<Void, Never>?
    }

    let backend: any StorageBackend
    private let state = Mutex(State())
    /// Transactions read per history read while catching up.
    static let batch = 256

    init(backend: any StorageBackend) {
        self.backend = backend
    }

    /// `commit` happened. When every observer has seen everything before it and none needs its
    /// entities, they all move past it at once, with no history read and no work per observer:
    /// with many observers of other entities a save costs what it costs with none. Otherwise
    /// history is read.
    func committed(_ commit: Commit?) {
        guard let commit else { return committed() }
        let passedOver = state.withLock { state -> Bool in
            guard commit.token.value == state.floor + 1, state.everything == 0,
                commit.entities.allSatisfy({ state.interest[$0, default: 0] == 0 })
            else { return false }
            state.floor = commit.token.value
            return true
        }
        if !passedOver { committed() }
    }

    /// A subscriber's position: its own, or the floor everyone has passed.
    private static func position(_ subscriber: Subscriber, _ state: State) -> Int64 {
        max(subscriber.position?.value ?? 0, state.floor)
    }

    /// How many observers are registered (cancelled observations are removed).
    var observerCount: Int { state.withLock { $0.subscribers.count } }

    /// Registers an observer that has seen everything up to `position` (nil: nothing).
    /// `entities`: the entities whose changes it needs (nil: every commit).
    package func subscribe(
        after position: HistoryToken?, entities: Set<String>? = nil, _ deliver: @escaping @Sendable (Event) -> Void
    ) -> UUID {
        let id = UUID()
        let polling = backend.externalCommits
        state.withLock { state in
            let start = position?.value ?? 0
            if state.subscribers.isEmpty {
                state.floor = start  // nobody else to keep a floor for
            } else if start < state.floor {
                // The floor may only fall to a new subscriber's position: the others keep theirs.
                var index = state.subscribers.values.startIndex
                while index != state.subscribers.values.endIndex {
                    let current = Self.position(state.subscribers.values[index], state)
                    state.subscribers.values[index].position = current == 0 ? nil : HistoryToken(current)
                    state.subscribers.values.formIndex(after: &index)
                }
                state.floor = start
            }
            state.subscribers[id] = Subscriber(position: position, entities: entities, deliver: deliver)
            if let entities {
                for entity in entities { state.interest[entity, default: 0] += 1 }
            } else {
                state.everything += 1
            }
            if let polling, state.poller == nil { state.poller = poll(polling) }
        }
        // Commits made between the observer's read and now are caught up at once.
        committed()
        return id
    }

    package func unsubscribe(_ id: UUID) {
        let poller = state.withLock { state -> Task<Void, Never>? in
            if let removed = state.subscribers.removeValue(forKey: id) {
                if let entities = removed.entities {
                    for entity in entities { state.interest[entity, default: 1] -= 1 }
                } else {
                    state.everything -= 1
                }
            }
            guard state.subscribers.isEmpty else { return nil }
            defer { state.poller = nil }
            return state.poller
        }
        poller?.cancel()
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
            let earliest = state.withLock { state -> Int64? in
                state.wokenWhileDraining = false
                return state.subscribers.values.map { Self.position($0, state) }.min()
            }
            var progressed = false
            if let earliestValue = earliest {
                let earliest = earliestValue == 0 ? nil : HistoryToken(earliestValue)
                do {
                    let (transactions, last) = try await backend.read { transaction in
                        (
                            try HistoryLog.read(after: earliest, limit: Self.batch, in: transaction),
                            try HistoryLog.lastToken(in: transaction)
                        )
                    }
                    if !transactions.isEmpty {
                        deliver(transactions)
                        progressed = transactions.count == Self.batch
                    } else if let last, last.value > earliestValue {
                        // Every entry after the earliest position was purged, the last one included.
                        deliverGap(through: last)
                    } else {
                        // Nothing after the earliest position: everyone has seen everything there is.
                        state.withLock { $0.floor = max($0.floor, earliestValue) }
                    }
                } catch {
                    for subscriber in state.withLock({ Array($0.subscribers.values) }) {
                        subscriber.deliver(.failed(error))
                    }
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
        let behind = state.withLock { state in state.subscribers.filter { Self.position($0.value, state) < token.value }
        }
        for (_, subscriber) in behind { subscriber.deliver(.gap(through: token)) }
        state.withLock { state in
            for id in behind.keys where state.subscribers[id] != nil { state.subscribers[id]?.position = token }
        }
    }

    /// The backend was closed: every observer ends (re-reading reports `StrataError.Code.storeClosed`).
    func closed() {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            subscriber.deliver(.failed(StrataError(.storeClosed, "the store has been closed")))
        }
    }

    /// Hands each subscriber the transactions after its position, in order, and moves it on.
    private func deliver(_ transactions: [HistoryTransaction]) {
        let (subscribers, floor) = state.withLock { ($0.subscribers, $0.floor) }
        var moved: [UUID: HistoryToken] = [:]
        for (id, subscriber) in subscribers {
            let position = max(subscriber.position?.value ?? 0, floor)
            let unseen = transactions.filter { $0.token.value > position }
            guard let first = unseen.first, let last = unseen.last else { continue }
            // Tokens are consecutive: a first unseen token past the next one means purged history.
            if first.token.value > position + 1 {
                subscriber.deliver(.gap(through: HistoryToken(first.token.value - 1)))
            }
            for transaction in unseen { subscriber.deliver(.committed(transaction)) }
            moved[id] = last.token
        }
        state.withLock { state in
            for (id, token) in moved where state.subscribers[id] != nil { state.subscribers[id]?.position = token }
            // Everyone is now past the earliest position: raise the floor so that commits nobody
            // needs are passed over again.
            if let earliest = state.subscribers.values.map({ Self.position($0, state) }).min() {
                state.floor = max(state.floor, earliest)
            }
        }
    }
}
