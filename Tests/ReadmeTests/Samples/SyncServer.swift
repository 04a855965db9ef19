// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Foundation
import Strata
import Hummingbird
import StrataSyncHTTPServer                       // on the server: the routes
import StrataSyncServer                           // and the server's logic: access, identities, limits

func serveSync(_ store: Store, tokens: [String: SyncIdentity], on router: Router<BasicRequestContext>) async throws -> Int {
    var access = SyncAccess()
    access.scope(Trip.self) { identity in \Trip.traveller == UUID(uuidString: identity.id) }  // what each reads and writes
    access.serverOwned(Person.self, ["email"])                                              // clients may not change these
    let endpoint = SyncEndpoint(server: SyncServer(store: store, access: access),
                                authenticator: StaticTokenAuthenticator(tokens),  // bearer token → SyncIdentity
                                limits: SyncLimits(maximumBodyBytes: 8 << 20, maximumMutationsPerPush: 1_000,
                                                   maximumPageSize: 1_000, maximumWait: .seconds(30),
                                                   rate: SyncRateLimit(perSecond: 50, burst: 100)))
    router.addSyncRoutes(endpoint)                    // in the app's own Hummingbird router, or:
    return try await SyncHTTPServer(endpoint: endpoint).start(host: "0.0.0.0", port: 8080)
}
