import Foundation
import Synchronization
import Testing

@testable import Strata
@testable import StrataSync
@testable import StrataSyncServer

/// The wire format's parts that are not behaviour of a store: token files, query encoding,
/// status classification, the rate limiter.
@Suite struct SyncWireTests {
    @Test func aTokensFileIsReadAndAMalformedLineIsNamedWithoutItsToken() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "# staff\nalpha-secret alice  # trailing comment\n\n  beta-secret bob\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let authenticator = try StaticTokenAuthenticator(file: path)
        #expect(try await authenticator.identity(forBearer: "alpha-secret")?.id == "alice")
        #expect(try await authenticator.identity(forBearer: "beta-secret")?.id == "bob")
        #expect(try await authenticator.identity(forBearer: "alpha-secre") == nil)
        try "ok-token carol\nlonely-secret-token\n".write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(throws: StrataError.self) { try StaticTokenAuthenticator(file: path) }
        #expect(error.message.contains(":2:"), "the line is named: \(error.message)")
        #expect(!error.message.contains("lonely-secret-token"), "the token is not")
    }

    @Test func pullRequestsSurviveTheirQueryEncoding() throws {
        let request = PullRequest(
            clientID: "phone 1+2&x", cursor: SyncCursor(42, epoch: "v2 + beta/é"), limit: 250,
            schemaVersion: "2026.1+x", waitMillis: 1500)
        let target = SyncWire.Request(method: "GET", path: SyncWire.pullPath, query: SyncWire.query(request)).target
        let decoded = try SyncWire.pullRequest(SyncWire.parseQuery(target))
        #expect(decoded == request)
        let snapshot = SnapshotRequest(
            clientID: "c", position: SnapshotPosition(entity: "Tag", after: .string("a b&c")), limit: 9)
        let back = try SyncWire.snapshotRequest(
            SyncWire.parseQuery(
                SyncWire.Request(method: "GET", path: SyncWire.snapshotPath, query: SyncWire.query(snapshot)).target))
        #expect(back == snapshot)
        #expect(throws: StrataError.self) { try SyncWire.pullRequest(["v": "1", "client": "c", "limit": "many"]) }
    }

    @Test func statusesMapToKindsAndRetryAfterIsRead() {
        func kind(_ status: Int, _ headers: [String: String] = [:], body: String = "") -> SyncTransportError {
            SyncWireClient.classify(SyncWire.Response(status: status, headers: headers, body: Array(body.utf8)))
        }
        #expect(kind(401).kind == .unauthorized)
        #expect(kind(403).kind == .forbidden)
        #expect(kind(409).kind == .incompatible)
        #expect(kind(410).kind == .resetRequired)
        #expect(kind(413).kind == .payloadTooLarge)
        #expect(kind(429, ["retry-after": "3"]).retryAfter == .seconds(3))
        #expect(kind(408).kind == .requestTimeout)
        #expect(kind(503).kind == .serverError && kind(503).isTransient)
        #expect(kind(502, body: "<html>bad gateway</html>").kind == .serverError)
        #expect(!kind(401).isTransient)
    }

    @Test func theRateLimiterRefillsPerIdentity() {
        let clock = Clock()
        let limiter = RateLimiter(SyncRateLimit(perSecond: 2, burst: 2, now: { clock.now }))
        #expect(limiter.take("a") == nil)
        #expect(limiter.take("a") == nil)
        #expect(limiter.take("a") == .milliseconds(500), "empty: one token comes in half a second")
        #expect(limiter.take("b") == nil, "another identity has its own bucket")
        clock.now = 0.5
        #expect(limiter.take("a") == nil)
    }

    final class Clock: Sendable {
        private let value = Mutex(0.0)
        var now: Double {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }
}
