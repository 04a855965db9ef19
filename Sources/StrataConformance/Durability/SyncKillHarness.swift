import Foundation
import Strata
import StrataInMemory
import StrataSync
import StrataSyncServer

/// Kill -9 in the middle of sync: a child process holds a client store and the server's store
/// (both of the backend under test) and loops — a local save (a tag inserted, the previous one
/// relabelled, a stop appended to a trip's ordered list), a server-side write (five tags
/// relabelled, as another client would), a push, a pull — until the parent kills it with SIGKILL
/// at a seeded moment. So a kill lands inside a local save, between a local commit and its push,
/// inside the server's apply of a push, between the server's commit and the client's
/// acknowledgement, inside a pull's apply, or between rounds, in both processes' stores at once.
///
/// The parent reopens both stores and checks: both `verify` sound; every save the child
/// acknowledged is in the client store (and at most the one in flight more); every push the child
/// saw acknowledged is on the server; then the client syncs with the server until nothing moves,
/// and must hold what the server holds (values, links, the ordered list's order), nothing pending,
/// nothing dangling — and a fresh client pulling from scratch must hold the same.
public enum SyncKillHarness {
    static let serverVariable = "STRATA_KILL_CHILD_SERVER"
    static let clientID = "killed-sync-client"
    /// The server's own tags (relabelled by the child as another client would).
    static let serverTags = 40
    static let tripID = UUID(uuidString: "00000000-0000-0000-0000-0000000000a0") ?? UUID()

    static func stopID(_ round: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-0000-0001-%012x", round)) ?? UUID()
    }

    /// The child's loop (``KillHarness/Window/sync``): every step's start and end written to
    /// `LOCATION.log`, one line each, as it happens. Runs until killed (two minutes at most).
    static func childMain(_ backend: DurableBackend, location: String) async throws {
        guard let serverLocation = ProcessInfo.processInfo.environment[serverVariable] else { return }
        let schema = try TravelDomain.schema()
        let descriptor = open(location + ".log", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        func note(_ line: String) { _ = "\(line)\n".withCString { write(descriptor, $0, strlen($0)) } }
        note("opening")
        let serverStore = Store(backend: try await backend.open(serverLocation, schema))
        let store = Store(
            backend: try await backend.open(location, schema), sync: SyncConfiguration(clientID: clientID))
        let engine = try SyncEngine(
            store: store, remote: InProcessTransport(server: SyncServer(store: serverStore)),
            options: .init(batchSize: 4, pullLimit: 9))
        note("pulling first")
        _ = try await engine.pull()
        note("pulled first")
        let deadline = ContinuousClock.now + .seconds(120)
        var rounds = 0
        while ContinuousClock.now < deadline {
            let round = rounds
            note("saving \(round)")
            try await store.unitOfWork { context in
                try await context.insert(Tag(id: "k\(round)", label: "k\(round) new"))
                if round > 0 { try await context.update(Tag(id: "k\(round - 1)", label: "k\(round - 1) old")) }
                try await context.insert(Stop(id: stopID(round), name: "stop \(round)", city: "c", trip: tripID))
            }
            note("saved \(round)")
            try await serverStore.unitOfWork { context in
                for offset in 0..<5 {
                    let id = "s\((round * 5 + offset) % serverTags)"
                    try await context.update(Tag(id: id, label: "\(id) r\(round)"))
                }
            }
            note("pushing \(round)")
            _ = try await engine.push()
            note("pushed \(round)")
            _ = try await engine.pull()
            note("pulled \(round)")
            rounds += 1
        }
    }

    /// Seeds a new server store: the trip the child's stops join and the server's tags.
    static func seedServer(_ backend: DurableBackend, at location: String) async throws {
        let store = Store(backend: try await backend.open(location, try TravelDomain.schema()))
        try await store.unitOfWork { context in
            try await context.insert(Trip(id: tripID, name: "killed", start: TravelDomain.day(0)))
            for index in 0..<serverTags { try await context.insert(Tag(id: "s\(index)", label: "s\(index) seeded")) }
        }
        try await store.close()
    }
}
