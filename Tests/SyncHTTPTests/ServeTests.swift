import Foundation
import Strata
import StrataSync
import StrataConformance
import StrataInMemory
import StrataPostgres
import StrataSQLite
import StrataSyncHTTPClient
import StrataSyncServer
import Testing

/// `strata serve` as a process: a client syncs through it, and two server processes over one
/// store keep every mutation exactly once while clients alternate between them and lose
/// acknowledgements.
@Suite("strata serve")
struct ServeTests {
    let directory: String

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("strata-serve-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "token-a alice\ntoken-b bob\n".write(toFile: "\(directory)/tokens", atomically: true, encoding: .utf8)
    }

    /// A new server store with the travel schema, closed (so only the servers hold it).
    func makeStore(_ kind: String) async throws -> String? {
        let url: String
        switch kind {
        case "sqlite":
            url = "sqlite:\(directory)/server.sqlite"
            SQLiteBackend.register()
        default:
            guard let base = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"] else {
                if ProcessInfo.processInfo.environment["CI"] == "true" {
                    throw StrataError(.storageFailure, "CI needs STRATA_POSTGRES_URL")
                }
                return nil
            }
            url = base + "?schema=serve_\(UUID().uuidString.prefix(8).lowercased())"
            PostgresBackend.register()
        }
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        try await store.close()
        return url
    }

    func client(_ id: String, remote: any SyncRemote, batchSize: Int = 500) async throws -> (Store, SyncEngine) {
        let store = Store(
            backend: InMemoryBackend(schema: try TravelDomain.schema()), sync: SyncConfiguration(clientID: id))
        return (store, try SyncEngine(store: store, remote: remote, options: .init(batchSize: batchSize)))
    }

    @Test func aClientSyncsThroughStrataServe() async throws {
        let url = try #require(try await makeStore("sqlite"))
        let server = try await ServeProcess.start(url: url, tokens: "\(directory)/tokens", directory: directory)
        defer { server.stop() }
        let (a, engineA) = try await client(
            "a", remote: HTTPSyncRemote(baseURL: server.baseURL, tokens: FixedToken("token-a")))
        let data = try await TravelData.seed(a)
        try await engineA.syncNow()
        let (b, engineB) = try await client(
            "b", remote: HTTPSyncRemote(baseURL: server.baseURL, tokens: FixedToken("token-b")))
        try await engineB.syncNow()
        #expect(try await b.repository(Stop.self).count() == data.stops.count)
        #expect(try await b.repository(Trip.self).count() == data.trips.count)
        let wrong = try await client(
            "c", remote: HTTPSyncRemote(baseURL: server.baseURL, tokens: FixedToken("not-a-token")))
        await #expect(throws: SyncTransportError.self) { try await wrong.1.syncNow() }
        #expect(await wrong.1.status.authentication == .unauthorized)
        #expect(server.stop() == 0, "SIGINT stops the server cleanly")
    }

    @Test func ownerScopesAnEntityToTheIdentityNamedInIt() async throws {
        let url = try #require(try await makeStore("sqlite"))
        let seeded = try await Store.open(url, schema: try TravelDomain.schema())
        try await seeded.repository(Person.self).insert(contentsOf: [
            Person(name: "alice"), Person(name: "bob"), Person(name: "alice"),
        ])
        try await seeded.close()
        let server = try await ServeProcess.start(
            url: url, tokens: "\(directory)/tokens", directory: directory, extra: ["--owner", "Person.name"])
        defer { server.stop() }
        let (a, engineA) = try await client(
            "a", remote: HTTPSyncRemote(baseURL: server.baseURL, tokens: FixedToken("token-a")))
        try await engineA.syncNow()
        #expect(try await a.repository(Person.self).fetch().map(\.name) == ["alice", "alice"])
        // Alice cannot create a record owned by Bob.
        try await a.repository(Person.self).insert(Person(name: "bob"))
        try await engineA.syncNow()
        #expect(await engineA.rejections.map(\.code) == ["permissionDenied"])
        #expect(try await a.repository(Person.self).count() == 2)
    }

    /// `--share` over `--owner`: Alice shares one of her people with Bob to read; his write is
    /// refused, and revoking removes it from his store and nothing from the server.
    @Test func shareLetsAnOwnerShareARecordThroughStrataServe() async throws {
        let schema = try Schema(models: TravelDomain.models + [SyncShare.self])
        let url = "sqlite:\(directory)/shared.sqlite"
        SQLiteBackend.register()
        let seeded = try await Store.open(url, schema: schema)
        let ana = Person(name: "alice", email: "ana@a.example")
        try await seeded.repository(Person.self).insert(contentsOf: [ana, Person(name: "alice"), Person(name: "bob")])
        try await seeded.close()
        let server = try await ServeProcess.start(
            url: url, tokens: "\(directory)/tokens", directory: directory,
            extra: ["--owner", "Person.name", "--share", "Person:trips"])
        defer { server.stop() }
        func client(_ id: String, _ token: String) throws -> (Store, SyncEngine) {
            let store = Store(backend: InMemoryBackend(schema: schema), sync: SyncConfiguration(clientID: id))
            let remote = HTTPSyncRemote(baseURL: server.baseURL, tokens: FixedToken(token))
            return (store, try SyncEngine(store: store, remote: remote))
        }
        let (a, engineA) = try client("a", "token-a")
        let (b, engineB) = try client("b", "token-b")
        let share = SyncShare(Person.self, ana.id, owner: "alice", with: "bob")
        try await a.repository(SyncShare.self).insert(share)
        try await engineA.syncNow()
        #expect(await engineA.rejections.isEmpty)
        try await engineB.syncNow()
        #expect(Set(try await b.repository(Person.self).fetch().map(\.id)).contains(ana.id))
        #expect(try await b.repository(Person.self).count() == 2, "his own and the one shared")
        var renamed = ana
        renamed.email = "bob@b.example"
        try await b.repository(Person.self).update(renamed)
        try await engineB.syncNow()
        #expect(await engineB.rejections.map(\.code) == ["permissionDenied"])
        try await a.repository(SyncShare.self).delete(share.id)
        try await engineA.syncNow()
        try await engineB.syncNow()
        #expect(try await b.repository(Person.self).fetch().map(\.name) == ["bob"])
        #expect(try await engineB.pendingMutations().isEmpty)
        try await engineA.syncNow()
        #expect(try await a.repository(Person.self).fetch(ana.id) == ana, "the owner's record is untouched")
        #expect(server.stop() == 0)
    }

    @Test func shareNeedsTheShareEntityAndAnOwnerRule() async throws {
        let url = try #require(try await makeStore("sqlite"))
        await #expect(throws: StrataError.self) {
            let server = try await ServeProcess.start(
                url: url, tokens: "\(directory)/tokens", directory: directory,
                extra: ["--owner", "Person.name", "--share", "Person"])
            server.stop()
        }
    }

    @Test(arguments: ["sqlite", "postgres"])
    func twoServerProcessesOverOneStoreKeepExactlyOnce(_ kind: String) async throws {
        guard let url = try await makeStore(kind) else { return }
        let first = try await ServeProcess.start(url: url, tokens: "\(directory)/tokens", directory: directory)
        defer { first.stop() }
        let second = try await ServeProcess.start(url: url, tokens: "\(directory)/tokens", directory: directory)
        defer { second.stop() }
        let clients = 3
        let saves = 4
        let perSave = 10
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<clients {
                group.addTask {
                    let token = FixedToken(index % 2 == 0 ? "token-a" : "token-b")
                    // Each push goes to the other server; three acknowledgements are lost.
                    let alternating = AlternatingRemote([
                        HTTPSyncRemote(baseURL: first.baseURL, tokens: token),
                        HTTPSyncRemote(baseURL: second.baseURL, tokens: token),
                    ])
                    let faulty = FaultInjectingRemote(
                        alternating, faults: [.failAfterApplying, .failAfterApplying, .failAfterApplying])
                    let (store, engine) = try await client("c\(index)", remote: faulty, batchSize: 7)
                    for save in 0..<saves {
                        try await store.transaction { tx in
                            for n in 0..<perSave {
                                try tx.insert(Tag(id: "c\(index)-\(save)-\(n)", label: "c\(index) \(save) \(n)"))
                            }
                        }
                        var attempts = 0
                        while true {
                            do {
                                try await engine.syncNow()
                                break
                            } catch {
                                attempts += 1
                                if attempts > 20 { throw error }
                            }
                        }
                    }
                    #expect(await faulty.failuresInjected == 3)
                }
            }
            try await group.waitForAll()
        }
        #expect(first.stop() == 0)
        #expect(second.stop() == 0)
        let store = try await Store.open(url, schema: try TravelDomain.schema())
        let server = SyncServer(store: store)
        #expect(try await store.repository(Tag.self).count() == clients * saves * perSave)
        for index in 0..<clients {
            #expect(try await server.lastAppliedSequence(of: "c\(index)") == UInt64(saves * perSave))
        }
        let inserts = try await store.history().flatMap(\.changes).filter { $0.kind == .insert && $0.entity == "Tag" }
            .count
        #expect(
            inserts == clients * saves * perSave,
            "each mutation applied once, though three acknowledgements per client were lost")
        try await store.close()
    }
}
