import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// Status and progress as a UI reads them from `statusUpdates()`: records and bytes of an initial
/// sync, a reset and an upload, and the state (syncing, idle, offline, needs sign-in).
extension TransportChecks {
    static let progress: [ConformanceCheck] = [
        ConformanceCheck(.transport, "progressCountsASubscriptionAResetAndAnUploadThenTheStateIsIdle") { c in
            let data = try await SubscriptionWorld.make(c)
            let (store, engine, _) = try await data.client()
            let seen = try await StatusRecorder.start(engine)
            try await engine.subscribe(try SyncSubscription("everyone", Person.self, including: ["trips"]))
            try await engine.syncNow()
            var statuses = try await seen.untilIdle()
            try expect(statuses.contains { $0.state == .syncing }, "the run showed as syncing")
            let subscribing = statuses.compactMap(\.download).filter { $0.phase == .subscribing(["everyone"]) }
            try expect(subscribing.count >= 2, "a status per page (pages of two): \(subscribing)")
            try expectEqual(subscribing.last?.expected, 5, "Ana, Abe and their three trips")
            try expectEqual(subscribing.last?.completed, 5)
            try expectEqual(subscribing.last?.fractionCompleted, 1)
            try expect(
                zip(subscribing, subscribing.dropFirst()).allSatisfy { $0.completed <= $1.completed },
                "progress never goes back: \(subscribing.map(\.completed))")
            try expect((subscribing.last?.bytes ?? 0) > 0, "the transport counted the bytes")
            try expect(subscribing.last?.bytesExpected != nil, "bytes expected, estimated once a page came")
            try expectEqual(statuses.last?.state, .idle)
            try expectEqual(statuses.last?.download, nil, "nothing downloading once idle")
            // An upload of three mutations.
            seen.reset()
            try await store.transaction { tx in
                for name in ["Ava", "Avi", "Axel"] { try tx.insert(Person(name: name, email: "\(name)@a.example")) }
            }
            try await engine.syncNow()
            statuses = try await seen.untilIdle()
            let upload = statuses.compactMap(\.upload).last
            try expectEqual(upload?.expected, 3)
            try expectEqual(upload?.completed, 3)
            try expect((upload?.bytes ?? 0) > 0, "the push's bytes were counted")
            // Everything again: a reset, counted against the whole readable state.
            seen.reset()
            try await engine.syncEverything()
            try await engine.syncNow()
            statuses = try await seen.untilIdle()
            let reset = statuses.compactMap(\.download).filter { $0.phase == .resetting }.last
            try expectEqual(reset?.expected, 9, "Alice's five people, three trips and the shared tag")
            try expectEqual(reset?.completed, 9)
        },
        ConformanceCheck(.transport, "theStateSaysOfflineOrNeedsSignInAndRecovers") { c in
            let data = try await SubscriptionWorld.make(c)
            let (_, engine, remote) = try await data.client()
            try await engine.subscribe(try SyncSubscription("everyone", Person.self))
            await remote.failSnapshots(after: 0)
            await expectFailure { try await engine.syncNow() }
            try expectEqual(await engine.status.state, .offline(retryAt: nil), "offline, no loop to retry")
            await remote.failSnapshots(after: nil)
            try await engine.syncNow()
            try expectEqual(await engine.status.state, .idle)
            // A token the server does not know: sign in again.
            let store = try await c.store().withSync(SyncConfiguration(clientID: "stranger"))
            let stranger = try SyncEngine(
                store: store, remote: data.world.host.remote(tokens: FixedToken("not-a-token")))
            await expectFailure { try await stranger.syncNow() }
            try expectEqual(await stranger.status.state, .needsSignIn)
        },
    ]

    private static func expectFailure(_ body: () async throws -> Void) async {
        do { try await body() } catch {}
    }
}

/// Records every status an engine publishes.
final class StatusRecorder: Sendable {
    private let seen = Mutex<[SyncStatus]>([])
    private let consumer = Mutex<Task<Void, Never>?>(nil)

    static func start(_ engine: SyncEngine) async throws -> StatusRecorder {
        let recorder = StatusRecorder()
        let stream = await engine.statusUpdates()
        recorder.consumer.withLock {
            $0 = Task { for await status in stream { recorder.seen.withLock { $0.append(status) } } }
        }
        return recorder
    }

    /// The statuses so far, once the last says the engine is no longer syncing.
    func untilIdle() async throws -> [SyncStatus] {
        for _ in 0..<500 {
            let statuses = seen.withLock { $0 }
            if let last = statuses.last, !last.isSyncing, statuses.contains(where: \.isSyncing) { return statuses }
            try await Task.sleep(for: .milliseconds(10))
        }
        try expect(false, "the engine's statuses never came back to idle: \(seen.withLock { $0.count }) seen")
        return []
    }

    func reset() { seen.withLock { $0.removeAll() } }

    deinit { consumer.withLock { $0?.cancel() } }
}
