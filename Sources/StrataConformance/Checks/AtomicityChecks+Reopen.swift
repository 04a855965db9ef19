import Foundation
import Strata

/// On-disk atomicity, for any backend that can reopen a store and nothing more: a save that failed
/// at any write, or at commit, is absent once the store is closed and opened again. A backend that
/// writes through to its files before commit (and only rolls back what it holds in memory) passes
/// every in-process check and fails these.
extension AtomicityChecks {
    static let afterReopen: [ConformanceCheck] = [
        ConformanceCheck(.atomicity, "aSaveThatFailedAtAnyWriteIsAbsentAfterAReopen", requires: [.reopen]) { c in
            var store = try await c.store()
            let data = try await TravelData.seed(store)
            let before = try await durableState(store)
            // How many writes the save makes: it fails at commit once to count them.
            let counting = FaultInjectingBackend(wrapping: store.backend)
            counting.inject(.failAtCommit)
            try await expectError(.storageFailure) { try await failingSave(Store(backend: counting), data) }
            let writes = counting.writesInLastTransaction
            try expect(writes >= 3, "the save makes \(writes) writes")
            for position in Set([1, (writes + 1) / 2, writes]).sorted() {
                let faulty = FaultInjectingBackend(wrapping: store.backend)
                faulty.inject(.failWrite(position))
                try await expectError(.storageFailure) { try await failingSave(Store(backend: faulty), data) }
                store = try await c.reopen(store)
                let after = try await durableState(store)
                try expectEqual(
                    after, before,
                    "a save that failed at write \(position) of \(writes), after a reopen: "
                        + after.snapshot.difference(from: before.snapshot))
            }
        },
        ConformanceCheck(.faults, "aSaveThatFailedAtCommitIsAbsentAfterAReopen", requires: [.reopen]) { c in
            var store = try await c.store()
            let data = try await TravelData.seed(store)
            let before = try await durableState(store)
            let faulty = FaultInjectingBackend(wrapping: store.backend)
            faulty.inject(.failAtCommit)
            try await expectError(.storageFailure) { try await failingSave(Store(backend: faulty), data) }
            store = try await c.reopen(store)
            let after = try await durableState(store)
            try expectEqual(
                after, before,
                "a save that failed at commit, after a reopen: " + after.snapshot.difference(from: before.snapshot))
            // The store still takes the same save, and keeps it across a reopen.
            try await failingSave(store, data)
            store = try await c.reopen(store)
            try expect(try await store.repository(Tag.self).fetch("ghost") != nil, "the retried save is kept")
            try expect(try await store.repository(Person.self).fetch(data.dario.id) == nil, "and its delete")
        },
    ]

    /// What a reopen must find unchanged: records, versions, link lists and the history.
    struct DurableState: Equatable, CustomStringConvertible {
        var snapshot: StoreSnapshot
        var history: [HistoryToken]
        var description: String { "\(snapshot), \(history.count) history transactions" }
    }

    static func durableState(_ store: Store) async throws -> DurableState {
        DurableState(snapshot: try await StoreSnapshot.take(store), history: try await store.history().map(\.token))
    }

    /// A save of several writes of every kind: a delete, two inserts and an update.
    static func failingSave(_ store: Store, _ data: TravelData) async throws {
        try await store.transaction { tx in
            try tx.delete(Person.self, id: data.dario.id)
            try tx.insert(Tag(id: "ghost", label: "Ghost"))
            try tx.insert(Person(name: "Newcomer"))
            var bruno = data.bruno
            bruno.age = 77
            try tx.update(bruno)
        }
    }
}
