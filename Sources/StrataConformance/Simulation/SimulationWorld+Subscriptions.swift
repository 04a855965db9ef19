import Foundation
import Strata
import StrataInMemory
import StrataSync
import StrataSyncServer

/// Subscriptions in a run: a client narrows, widens, renews or drops what it syncs, sometimes with
/// a time to live the simulated clock runs out, or goes back to syncing everything; the judge then
/// compares it with an observer holding the same subscriptions.
extension SimulationWorld {
    /// The names a run subscribes under, each to one shape of query.
    static let subscriptionNames = ["trips", "people", "tags", "agencies"]

    /// A change of client `index`'s subscriptions, drawn from the seed.
    mutating func changeSubscriptions(_ index: Int) async throws -> String {
        let client = clients[index]
        let roll = random.below(12)
        let timeToLive: Duration? = random.chance(0.3) ? .seconds(random.int(5...60)) : nil
        let lasting = timeToLive.map { " for \($0.components.seconds) s" } ?? ""
        switch roll {
        case 0..<4:
            let minimum = [0, 1000, 2500, 4000][random.below(4)]
            let including = random.chance(0.7) ? ["stops"] : []
            try await client.engine.subscribe(
                try SyncSubscription(
                    "trips", Trip.self, where: "budget >= $minimum", parameters: ["minimum": .double(Double(minimum))],
                    including: including, timeToLive: timeToLive))
            return "\(client.name) subscribes to trips budgeted at \(minimum) or more"
                + (including.isEmpty ? "" : " with their stops") + lasting
        case 4..<6:
            let including = random.chance(0.5) ? ["trips"] : []
            try await client.engine.subscribe(
                try SyncSubscription("people", Person.self, including: including, timeToLive: timeToLive))
            return "\(client.name) subscribes to people" + (including.isEmpty ? "" : " with their trips") + lasting
        case 6..<7:
            try await client.engine.subscribe(try SyncSubscription("tags", Tag.self, timeToLive: timeToLive))
            return "\(client.name) subscribes to tags" + lasting
        case 7..<8:
            try await client.engine.subscribe(try SyncSubscription("agencies", Agency.self, timeToLive: timeToLive))
            return "\(client.name) subscribes to agencies" + lasting
        case 8..<11:
            let name = Self.subscriptionNames[random.below(Self.subscriptionNames.count)]
            try await client.engine.unsubscribe(name)
            return "\(client.name) unsubscribes from \(name)"
        default:
            try await client.engine.syncEverything()
            return "\(client.name) syncs everything again"
        }
    }

    /// What a fresh client holding `client`'s subscriptions pulls from the server now, or `nil`
    /// when `client` syncs everything (the server's state is then the reference).
    /// When the run shares, the observer is signed in as `client`'s identity, and there is one
    /// for a client that syncs everything too (it syncs what that identity may read).
    func observed(by client: SimulatedClient) async throws -> SimulationState? {
        let subscriptions = try await client.engine.subscriptions()
        guard subscriptions != nil || shares else { return nil }
        let store = Store(backend: InMemoryBackend(schema: serverStore.schema)).withSync(
            SyncConfiguration(clientID: "observer-\(client.name)", clock: clock.reading(skew: 0)))
        let remote: any SyncRemote =
            shares
            ? link(
                to: SyncServer(store: serverStore, access: Self.access(shares: true)),
                tokens: FixedToken(SimulationTokens.observerToken(client.index)))
            : InProcessTransport(server: SyncServer(store: serverStore))
        let engine = try SyncEngine(store: store, remote: remote)
        if subscriptions?.isEmpty == true {
            // Subscribed to nothing (its last subscription removed), not syncing everything.
            try await engine.subscribe(try SyncSubscription("none", Tag.self))
            try await engine.unsubscribe("none")
        }
        for state in subscriptions ?? [] {
            var lasting = state.subscription
            lasting.timeToLive = nil
            try await engine.subscribe(lasting)
        }
        // Until a pull brings nothing (a `where` clause would not stop the loop: it pulled 64 times).
        for _ in 0..<64 where try await engine.pull() == 0 { break }
        return try await SimulationState.read(store)
    }
}
