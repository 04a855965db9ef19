import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// A save that fails at any write, or at commit, leaves nothing behind — records, versions,
/// memberships, history, outbox and sync cursors — through every write path; and the same save
/// then succeeds once. Run over ``FaultInjectingBackend`` wrapping the backend under test.
enum FaultChecks {
    /// Everything a failed save must leave as it was.
    struct Observed: Equatable {
        var snapshot: StoreSnapshot
        var outbox: [MutationID]
        var history: [HistoryToken]
        /// A context's pending changes, for a context save (they must survive a failed save).
        var pending: ContextChanges?
    }

    static func observe(_ store: Store) async throws -> Observed {
        let outbox =
            store.sync == nil ? [] : try await SyncEngine(store: store, remote: NoRemote()).pendingMutations().map(\.id)
        return Observed(
            snapshot: try await StoreSnapshot.take(store), outbox: outbox,
            history: try await store.history().map(\.token))
    }

    /// Makes `save` fail at every write position it reaches and at commit, expecting a typed
    /// `StrataError.Code.storageFailure` and `observed` unchanged each time; then runs it without a
    /// fault. Returns how many fault points were tried.
    @discardableResult
    static func sweep(
        _ faulty: FaultInjectingBackend, _ label: String, observed: () async throws -> Observed,
        expectFailure: Bool = true, _ save: () async throws -> Void,
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) async throws -> Int {
        let before = try await observed()
        func attempt(_ fault: FaultInjectingBackend.Fault) async throws {
            faulty.inject(fault)
            var thrown: (any Error)?
            do { try await save() } catch { thrown = error }
            if expectFailure {
                guard let error = thrown as? StrataError, error.code == .storageFailure else {
                    throw ConformanceFailure(
                        "\(label), \(fault): expected storageFailure, got \(thrown.map { "\($0)" } ?? "success")",
                        fileID: fileID, filePath: filePath, line: line)
                }
            }
            let after = try await observed()
            if after != before {
                throw ConformanceFailure(
                    "\(label), \(fault): the failed save left \(after.snapshot.difference(from: before.snapshot)) outbox \(before.outbox.count) → \(after.outbox.count)",
                    fileID: fileID, filePath: filePath, line: line)
            }
        }
        try await attempt(.failAtCommit)
        let writes = faulty.writesInLastTransaction
        if writes == 0 {
            throw ConformanceFailure(
                "\(label): the save made no writes to fail", fileID: fileID, filePath: filePath, line: line)
        }
        for position in 1...writes { try await attempt(.failWrite(position)) }
        try await save()
        if try await observed() == before {
            throw ConformanceFailure(
                "\(label): the save without a fault changed nothing", fileID: fileID, filePath: filePath, line: line)
        }
        return writes + 1
    }

    /// A store over the faulty wrapper of a fresh store from the backend under test.
    static func faultyStore(_ c: ConformanceContext, sync: SyncConfiguration? = nil) async throws -> (
        Store, FaultInjectingBackend
    ) {
        let inner = try await c.store()
        let faulty = FaultInjectingBackend(wrapping: inner.backend)
        return (Store(backend: faulty, location: inner.location, sync: sync), faulty)
    }

    static var all: [ConformanceCheck] { failedSaves + abruptStop }

    static let failedSaves: [ConformanceCheck] = [
        ConformanceCheck(.faults, "aFailedInsertWithSyncOnLeavesNoRecordHistoryOrOutboxEntry") { c in
            let (store, faulty) = try await faultyStore(c, sync: SyncConfiguration(clientID: "f"))
            let data = TravelData()
            try await sweep(faulty, "repository insert", observed: { try await observe(store) }) {
                try await store.repository(Person.self).insert(data.ana)
            }
            try expectEqual(try await store.repository(Person.self).count(), 1)
            try expectEqual(try await observe(store).outbox.count, 1, "exactly one outbox entry after the faults")
        },
        ConformanceCheck(.faults, "aFailedTransactionWithCascadesLinksAndInsertsLeavesNothing") { c in
            let (store, faulty) = try await faultyStore(c, sync: SyncConfiguration(clientID: "f"))
            let data = try await TravelData.seed(store)
            let points = try await sweep(faulty, "transaction", observed: { try await observe(store) }) {
                try await store.transaction(author: "faults") { tx in
                    try tx.delete(Person.self, id: data.ana.id)  // cascades trips, their stops; nullifies tags
                    try tx.link(Trip.tags, from: data.azoresHike.id, to: data.beach.id)
                    try tx.setRelated(Person.interests, of: data.bruno.id, to: [data.food.id, data.city.id])
                    try tx.insert(Trip(name: "New", start: TravelDomain.day(3), traveller: data.clara.id))
                    var bruno = data.bruno
                    bruno.age = 29
                    try tx.update(bruno)
                }
            }
            try expect(points > 10, "the save had \(points) fault points")
            try expectEqual(try await store.repository(Trip.self).count(), 4)
        },
        ConformanceCheck(.faults, "aFailedContextSaveLeavesNothingAndKeepsItsPendingChanges") { c in
            let (store, faulty) = try await faultyStore(c)
            let data = try await TravelData.seed(store)
            let context = store.makeContext(name: "faults", mergePolicy: .objectTrumpByProperty)
            var trip = try expectNotNil(try await context.fetch(Trip.self, id: data.portoWine.id))
            trip.budget = 1
            try await context.update(trip)
            try await context.link(Trip.tags, from: data.portoWine.id, to: data.city.id)
            try await context.delete(Trip.self, id: data.lisbonSpring.id)
            try await context.insert(Tag(id: "new", label: "New"))
            try await sweep(
                faulty, "context save",
                observed: {
                    var observed = try await observe(store)
                    observed.pending = await context.pendingChanges
                    return observed
                }
            ) {
                try await context.save()
            }
            try expect(!(await context.hasChanges), "saved at last")
            try expectEqual(try await store.repository(Trip.self).fetch(data.portoWine.id)?.budget, 1)
        },
        ConformanceCheck(.faults, "aFailedPushApplyLeavesTheServerUnchangedAndTheRetryAppliesOnce") { c in
            let (serverStore, faulty) = try await faultyStore(c)
            let server = SyncServer(store: serverStore)
            let client = try await c.store().withSync(SyncConfiguration(clientID: "client"))
            let engine = try SyncEngine(store: client, remote: InProcessTransport(server: server))
            try await TravelData.seed(client)
            try await sweep(faulty, "server push", observed: { try await observe(serverStore) }, expectFailure: false) {
                _ = try? await engine.push()
            }
            try expectEqual(
                try await engine.pendingMutations().count, 0, "the client's outbox drained once the push applied")
            try await engine.syncNow()
            try await expectSettled([client], server: server)
            try expectEqual(try await serverStore.history().count, 1, "the seed was applied once")
        },
        ConformanceCheck(.faults, "aFailedPullApplyLeavesTheClientUnchanged") { c in
            let server = SyncServer(store: try await c.store())
            let data = try await TravelData.seed(server.store)
            let (client, faulty) = try await faultyStore(c, sync: SyncConfiguration(clientID: "client"))
            let engine = try SyncEngine(store: client, remote: InProcessTransport(server: server))
            try await sweep(faulty, "client pull", observed: { try await observe(client) }, expectFailure: false) {
                _ = try? await engine.pull()
            }
            try expectEqual(
                try await client.repository(Trip.self).fetch(data.lisbonSpring.id)?.name, data.lisbonSpring.name)
            try await expectSettled([client], server: server)
        },
        ConformanceCheck(.faults, "aFailedHistoryPurgeKeepsTheHistory") { c in
            let (store, faulty) = try await faultyStore(c)
            try await TravelData.seed(store)
            try await store.repository(Tag.self).insert(Tag(id: "x", label: "X"))
            let token = try expectNotNil(try await store.currentHistoryToken())
            try await sweep(faulty, "purge", observed: { try await observe(store) }) {
                _ = try await store.purgeHistory(before: token)
            }
            try expectEqual(try await store.history().map(\.token), [token])
        },
    ]
}

/// A remote for reading a store's outbox: nothing is ever sent.
struct NoRemote: SyncRemote {
    func push(_ request: PushRequest) async throws -> PushResponse { throw StrataError(.storageFailure, "no remote") }
    func pull(_ request: PullRequest) async throws -> PullResponse { throw StrataError(.storageFailure, "no remote") }
}
