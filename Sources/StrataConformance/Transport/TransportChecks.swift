import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Sync through a `SyncEndpoint` as a network would carry it: lost acknowledgements, expired
/// credentials, rate limits, oversized batches, versions the server does not speak — and (in
/// TransportChecks+Scopes) identities, scopes, long polls and resets. Run over the suite's
/// transport harness: in process by default, over HTTP on 127.0.0.1 from `ConformanceTests`.
enum TransportChecks {
    static var all: [ConformanceCheck] {
        faults + scopes + denied + feeds + malformed + formats + codable + progress + batchCascade
            + duplicates + tombstones + droppedLinks + rejectedMoves + restored + sameRecordAnswers
    }

    static let faults: [ConformanceCheck] = [
        ConformanceCheck(.transport, "aLostAcknowledgementIsRetriedAsDuplicateAndAppliedOnce") { c in
            let world = try await TransportWorld.make(c)
            let (store, engine) = try await world.client("a", tokens: FixedToken("token-a"))
            _ = try await TravelData.seed(store)
            world.host.loseAcknowledgements(1)
            do {
                try await engine.push()
                try expect(false, "a push whose answer was lost should fail")
            } catch let error as SyncTransportError {
                try expect(error.isTransient, "a lost answer is worth retrying: \(error)")
            }
            try expectEqual(try await engine.pendingMutations().count, 18, "nothing acknowledged, nothing dropped")
            try expectEqual(
                try await world.server.lastAppliedSequence(of: "a"), 18,
                "the server applied the batch before the answer was lost")
            let saves = try await world.server.store.history().count
            try await engine.syncNow()
            try expectEqual(try await world.server.store.history().count, saves, "the retry applied nothing again")
            try await expectSettled([store], server: world.server)
        },
        ConformanceCheck(.transport, "unauthorizedMidDrainKeepsTheOutboxAndResumesAfterARefresh") { c in
            let authenticator = RevocableTokens(TransportWorld.tokens)
            let world = try await TransportWorld.make(c, authenticator: authenticator)
            let token = RenewableToken("token-a")
            let scripted = ScriptedRemote(world.host.remote(tokens: token))
            let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engine = try SyncEngine(store: store, remote: scripted, options: .init(batchSize: 5))
            _ = try await TravelData.seed(store)
            // The token expires once the first batch is through.
            await scripted.onPush { count in if count == 1 { authenticator.revoke("token-a") } }
            do {
                try await engine.syncNow()
                try expect(false, "a sync with a revoked token should fail")
            } catch let error as SyncTransportError {
                try expectEqual(error.kind, .unauthorized)
                try expect(!error.description.contains("token-a"), "the error never carries the token: \(error)")
            }
            try expectEqual(await engine.status.authentication, .unauthorized)
            try expectEqual(
                try await engine.pendingMutations().count, 13, "the first batch was acknowledged, the rest kept")
            try expect(token.refreshes >= 1, "the client asked for a new token once before giving up")
            authenticator.grant("token-a2", TransportWorld.alice)
            token.offer("token-a2")
            try await engine.syncNow()
            try expectEqual(await engine.status.authentication, .accepted)
            try await expectSettled([store], server: world.server)
        },
        ConformanceCheck(.transport, "rateLimitedCallsWaitAsToldWithoutSpendingRetries") { c in
            let clock = ManualSeconds()
            let world = try await TransportWorld.make(
                c, limits: SyncLimits(rate: SyncRateLimit(perSecond: 1, burst: 2, now: { clock.now })))
            let (store, engine) = try await world.client(
                "a", tokens: FixedToken("token-a"), options: .init(batchSize: 3, sleep: { clock.sleep($0) }))
            _ = try await TravelData.seed(store)
            try await engine.syncNow()
            try expect(clock.waited.count >= 4, "six pushes and a pull over a burst of two wait: \(clock.waited)")
            try expect(
                clock.waited.allSatisfy { $0 == .seconds(1) }, "each wait is the server's Retry-After: \(clock.waited)")
            try expectEqual(await engine.status.failures, 0, "waiting as told is not a failure")
            try await expectSettled([store], server: world.server)
        },
        ConformanceCheck(.transport, "anOversizedBatchIsRefused413AndSplit") { c in
            for limits in [
                SyncLimits(maximumMutationsPerPush: 4, rate: nil), SyncLimits(maximumBodyBytes: 3_000, rate: nil),
            ] {
                let world = try await TransportWorld.make(c, limits: limits)
                let scripted = ScriptedRemote(world.host.remote(tokens: FixedToken("token-a")))
                let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
                let engine = try SyncEngine(store: store, remote: scripted, options: .init(batchSize: 100))
                _ = try await TravelData.seed(store)
                try await engine.syncNow()
                let batches = await scripted.pushedBatches
                try expectEqual(batches.reduce(0, +), 18, "every mutation went, once: \(batches)")
                try expect(batches.count > 1, "the batch was split: \(batches)")
                if limits.maximumMutationsPerPush == 4 { try expect(batches.allSatisfy { $0 <= 4 }, "\(batches)") }
                try await expectSettled([store], server: world.server)
            }
        },
        ConformanceCheck(.transport, "unknownVersionsAndCredentialsGetTypedErrors") { c in
            let world = try await TransportWorld.make(c)
            let remote = world.host.remote(tokens: FixedToken("token-a"))
            func expectKind(_ kind: SyncTransportError.Kind, _ what: String, _ body: () async throws -> Void)
                async throws
            {
                do {
                    try await body()
                    try expect(false, "\(what) should fail")
                } catch let error as SyncTransportError {
                    try expectEqual(error.kind, kind, "\(what): \(error)")
                }
            }
            var push = PushRequest(clientID: "a", mutations: [])
            push.version = 99
            try await expectKind(.incompatible, "a push of format 99") { _ = try await remote.push(push) }
            var pull = PullRequest(clientID: "a", cursor: nil)
            pull.version = 99
            try await expectKind(.incompatible, "a pull of format 99") { _ = try await remote.pull(pull) }
            try await expectKind(.resetRequired, "a cursor of another schema epoch") {
                _ = try await remote.pull(PullRequest(clientID: "a", cursor: SyncCursor(1, epoch: "an-older-schema")))
            }
            try await expectKind(.unauthorized, "an unknown token") {
                _ = try await world.host.remote(tokens: FixedToken("not-a-token")).pull(
                    PullRequest(clientID: "a", cursor: nil))
            }
            try await expectKind(.badRequest, "a pull without a client") {
                _ = try await remote.pull(PullRequest(clientID: "", cursor: nil))
            }
            // The server's store is untouched by all of it.
            try expectEqual(try await world.server.store.history().count, 0)
            // A server of a named schema version refuses clients of another, by version.
            let versioned = try await TransportWorld.make(c, schema: try TravelDomain.schema().versioned("2"))
            let older = versioned.host.remote(tokens: FixedToken("token-a"))
            try await expectKind(.incompatible, "a push from a client at schema version 1") {
                _ = try await older.push(PushRequest(clientID: "a", mutations: [], schemaVersion: "1"))
            }
            try await expectKind(.incompatible, "a pull from a client at schema version 1") {
                _ = try await older.pull(PullRequest(clientID: "a", cursor: nil, schemaVersion: "1"))
            }
            _ = try await older.pull(PullRequest(clientID: "a", cursor: nil, schemaVersion: "2"))
        },
    ]
}
