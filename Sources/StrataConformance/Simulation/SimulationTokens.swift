import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// The bearer tokens of a run, on the simulated clock: client `i` signs in as identity `c<i>` with
/// a token that lasts its own lifetime (drawn per client); the server's authenticator accepts only
/// a client's current, unexpired token (a `401` otherwise), and a client's provider mints the next
/// one when the engine refreshes after a `401` — unless the client's sign-in is refused for now,
/// when the engine stops with its outbox kept until a later sync signs in again.
final class SimulationTokens: SyncAuthenticator, Sendable {
    /// One client's sign-in: its current token, when that expires, and whether a refresh is refused.
    struct Grant: Sendable {
        var generation = 0
        var expires: Date
        var lifetime: TimeInterval
        var refused = false
    }

    private let grants = Mutex<[Int: Grant]>([:])
    private let clock: SimulatedClock
    private let tally = Mutex<[String: Int]>([:])
    /// Counts of what the run did to tokens (expired, refreshed, refused), for its summary.
    var counts: [String: Int] { tally.withLock { $0 } }

    init(clock: SimulatedClock) { self.clock = clock }

    /// Signs client `index` in with a token lasting `lifetime` seconds of the simulated clock.
    func signIn(_ index: Int, lifetime: TimeInterval) {
        let now = clock.reading(skew: 0)()
        grants.withLock { $0[index] = Grant(expires: now + lifetime, lifetime: lifetime) }
    }

    /// Client `index`'s provider.
    func provider(for index: Int) -> any SyncTokenProvider { Provider(tokens: self, index: index) }

    /// The token the judge's observer of client `index` signs in with, as that client's identity;
    /// it never expires.
    static func observerToken(_ index: Int) -> String { "o\(index)" }

    func identity(forBearer token: String) async throws -> SyncIdentity? {
        if token.hasPrefix("o"), let index = Int(token.dropFirst()) { return SyncIdentity("c\(index)") }
        let parts = token.split(separator: ".")
        guard parts.count == 2, parts[0].hasPrefix("c"), let index = Int(parts[0].dropFirst()),
            let generation = Int(parts[1])
        else { return nil }
        let now = clock.reading(skew: 0)()
        let valid = grants.withLock { grants in
            grants[index].map { $0.generation == generation && now < $0.expires && !$0.refused } ?? false
        }
        return valid ? SyncIdentity("c\(index)") : nil
    }

    /// Client `index`'s token expires now (its next call is refused once, then refreshed).
    func expire(_ index: Int) {
        let now = clock.reading(skew: 0)()
        grants.withLock { $0[index]?.expires = now }
        count("expired")
    }

    /// Client `index`'s sign-in is refused (`refused` true: its token revoked and no refresh
    /// given) or allowed again.
    func refuse(_ index: Int, _ refused: Bool) {
        let now = clock.reading(skew: 0)()
        grants.withLock { grants in
            grants[index]?.refused = refused
            if refused { grants[index]?.expires = now }
        }
        count(refused ? "refused" : "allowed again")
    }

    /// Every client may sign in again (the judge's healed network).
    func allowAll() {
        grants.withLock { grants in for index in grants.keys { grants[index]?.refused = false } }
    }

    private func count(_ what: String) { tally.withLock { $0[what, default: 0] += 1 } }

    fileprivate func current(_ index: Int) -> String {
        "c\(index).\(grants.withLock { $0[index]?.generation ?? 0 })"
    }

    fileprivate func refresh(_ index: Int) -> String? {
        let now = clock.reading(skew: 0)()
        let generation: Int? = grants.withLock { grants in
            guard var grant = grants[index], !grant.refused else { return nil }
            grant.generation += 1
            grant.expires = now + grant.lifetime
            grants[index] = grant
            return grant.generation
        }
        count(generation == nil ? "refresh refused" : "refreshed")
        return generation.map { "c\(index).\($0)" }
    }

    private struct Provider: SyncTokenProvider {
        let tokens: SimulationTokens
        let index: Int
        func token() async throws -> String { tokens.current(index) }
        func refresh() async throws -> String? { tokens.refresh(index) }
    }
}
