import Foundation
import Strata
import StrataInMemory
import StrataLMDB
import StrataSQLite
import Synchronization

/// What observation costs a save, and what a live query's diff costs against refetching.
public enum ObservationWorkloads {
    static let saves = 200
    static let observers = 100

    /// Consumes observations in tasks of their own until cancelled, counting the values; a waiter
    /// is resumed the moment the count reaches what it waits for (no polling in the measurement).
    final class Observers: Sendable {
        private struct State {
            var received = 0
            var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        }

        private let tasks: Mutex<[Task<Void, Never>]> = Mutex([])
        private let state = Mutex(State())

        func start<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element: Sendable {
            let task = Task { [self] in
                do { for try await _ in sequence { arrived() } } catch {}
            }
            tasks.withLock { $0.append(task) }
        }

        private func arrived() {
            let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.received += 1
                let count = state.received
                let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
                state.waiters.removeAll { $0.count <= count }
                return ready
            }
            for continuation in ready { continuation.resume() }
        }

        /// Waits until `count` values have arrived in all.
        func wait(for count: Int) async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Bool in
                    if state.received >= count { return true }
                    state.waiters.append((count, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        }

        func cancel() { tasks.withLock { for task in $0 { task.cancel() } } }
    }

    public enum Observed: Sendable { case none, otherEntity, savedEntity }

    /// `saves` one-record saves (each an update of one item in a store of 10,000), with 100 live
    /// queries of another entity, of the saved one, or none.
    public static func oneRecordSaves(_ makeStore: @escaping @Sendable () async throws -> Store, observed: Observed)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let store = try await ContextWorkloads.seeded(makeStore)
            try await store.repository(BenchParent.self).insert(
                contentsOf: (0..<10).map { BenchParent(id: UUID(), name: "p\($0)") })
            let items = try await store.repository(BenchItem.self).fetch(
                Query<BenchItem>.all.sorted(by: \.name).limit(saves))
            let live = Observers()
            switch observed {
            case .none: break
            case .otherEntity:
                for index in 0..<observers {
                    live.start(store.observe(Query<BenchParent>.where(\.name == "p\(index % 10)")))
                }
            case .savedEntity:
                for index in 0..<observers {
                    live.start(store.observe(Query<BenchItem>.where(\.category == index).sorted(by: \.score)))
                }
            }
            if observed != .none { await live.wait(for: observers) }
            return {
                defer { live.cancel() }
                for item in items { try await store.repository(BenchItem.self).update(ContextWorkloads.changed(item)) }
                return items.count
            }
        }
    }

    public static let changes = 50

    /// How a one-record change reaches a consumer of a 10,000-record result.
    public enum Delivery: Sendable { case saveOnly, liveQuery, refetchAndDifference }

    /// `changes` times: update one item's sort key, then — per `delivery` — nothing more, wait
    /// for the live query's next value (its diff computed), or refetch the whole result and
    /// compute `difference(from:)` against the previous one.
    public static func delivery(_ makeStore: @escaping @Sendable () async throws -> Store, _ delivery: Delivery)
        -> @Sendable () async throws -> @Sendable () async throws -> Int
    {
        {
            let store = try await ContextWorkloads.seeded(makeStore)
            let query = Query<BenchItem>.all.sorted(by: \.score)
            let items = try await store.repository(BenchItem.self).fetch(query)
            let picked = (0..<changes).map { items[($0 * 7_919) % items.count] }
            let observers = Observers()
            if delivery == .liveQuery {
                observers.start(store.observe(query))
                await observers.wait(for: 1)
            }
            return {
                defer { observers.cancel() }
                var previous = items
                var changed = 0
                for (index, item) in picked.enumerated() {
                    var updated = item
                    updated.score = Double(index) * 1.000_1 + 0.5
                    try await store.repository(BenchItem.self).update(updated)
                    switch delivery {
                    case .saveOnly:
                        break
                    case .liveQuery:
                        await observers.wait(for: index + 2)
                        changed += 1
                    case .refetchAndDifference:
                        let current = try await store.repository(BenchItem.self).fetch(query)
                        changed += current.difference(from: previous).isEmpty ? 0 : 1
                        previous = current
                    }
                }
                return delivery == .saveOnly ? picked.count : changed
            }
        }
    }

    @Sendable static func lmdbStore() async throws -> Store {
        Store(
            backend: try await LMDBBackend.open(
                path: SQLiteWorkloads.temporaryPath() + ".lmdb", schema: try BenchSchema.make()))
    }

    public static let groups: [WorkloadGroup] = [
        WorkloadGroup(
            backend: "one-record saves with 100 observers (in-memory)", peer: "0 observers",
            workloads: [
                Workload(
                    name: "200 saves, observers of another entity",
                    ours: oneRecordSaves(InMemoryWorkloads.makeStore, observed: .otherEntity),
                    peer: oneRecordSaves(InMemoryWorkloads.makeStore, observed: .none)),
                Workload(
                    name: "200 saves, observers of the saved entity",
                    ours: oneRecordSaves(InMemoryWorkloads.makeStore, observed: .savedEntity),
                    peer: oneRecordSaves(InMemoryWorkloads.makeStore, observed: .none)),
            ]),
        WorkloadGroup(
            backend: "one-record saves with 100 observers (SQLite)", peer: "0 observers",
            workloads: [
                Workload(
                    name: "200 saves, observers of another entity",
                    ours: oneRecordSaves(SQLiteWorkloads.ourStore, observed: .otherEntity),
                    peer: oneRecordSaves(SQLiteWorkloads.ourStore, observed: .none)),
                Workload(
                    name: "200 saves, observers of the saved entity",
                    ours: oneRecordSaves(SQLiteWorkloads.ourStore, observed: .savedEntity),
                    peer: oneRecordSaves(SQLiteWorkloads.ourStore, observed: .none)),
            ]),
        WorkloadGroup(
            backend: "one-record saves with 100 observers (LMDB)", peer: "0 observers",
            workloads: [
                Workload(
                    name: "200 saves, observers of another entity",
                    ours: oneRecordSaves(lmdbStore, observed: .otherEntity),
                    peer: oneRecordSaves(lmdbStore, observed: .none))
            ]),
    ]
}
