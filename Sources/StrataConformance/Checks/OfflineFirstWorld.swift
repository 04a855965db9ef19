import Foundation
import Strata
import StrataSync
import StrataSyncServer
import Synchronization

/// A server and its clients for one check. The server's store and every client's local store come
/// from the backend under test, so the suite proves both roles on it.
struct SyncWorld {
    let server: SyncServer
    let context: ConformanceContext
    /// What clients call: the in-process transport (JSON), or — when the suite runs over another
    /// transport harness — the server's endpoint served there, for one trusted identity with no
    /// rate limit.
    let transport: any SyncRemote

    static func make(_ c: ConformanceContext, policies: [String: SyncServerConflictPolicy] = [:]) async throws
        -> SyncWorld
    {
        let server = SyncServer(store: try await c.store(), policies: policies)
        guard let harness = c.transport else {
            return SyncWorld(server: server, context: c, transport: InProcessTransport(server: server))
        }
        let endpoint = SyncEndpoint(
            server: server, authenticator: StaticTokenAuthenticator(["world-token": SyncIdentity("world")]),
            limits: SyncLimits(rate: nil))
        let host = try await harness.host(endpoint)
        c.onTeardown { await host.shutdown() }
        return SyncWorld(server: server, context: c, transport: host.remote(tokens: FixedToken("world-token")))
    }

    /// A server and clients `a` and `b`, both synced after `a` seeded the travel data.
    static func twoSyncedClients(_ c: ConformanceContext) async throws -> (
        SyncWorld, Store, SyncEngine, Store, SyncEngine, TravelData
    ) {
        let world = try await make(c)
        let (a, engineA) = try await world.client("a")
        let (b, engineB) = try await world.client("b")
        let data = try await TravelData.seed(a)
        try await engineA.syncNow()
        try await engineB.syncNow()
        return (world, a, engineA, b, engineB, data)
    }

    /// A client store with sync on, and its engine over `remote` (the in-process transport by default).
    func client(
        _ id: String, remote: (any SyncRemote)? = nil, options: SyncEngine.Options = .init(),
        clock: (@Sendable () -> Date)? = nil
    ) async throws -> (Store, SyncEngine) {
        let configuration = clock.map { SyncConfiguration(clientID: id, clock: $0) } ?? SyncConfiguration(clientID: id)
        let store = try await context.store().withSync(configuration)
        return (store, try SyncEngine(store: store, remote: remote ?? transport, options: options))
    }
}

/// What must be equal between a client and the server once sync settles: every record's values and
/// every to-many's members in order (versions are each store's own).
struct SyncedState: Equatable {
    var records: [RecordKey: [String: Value]]
    var related: [String: [RecordID]]

    static func take(_ store: Store) async throws -> SyncedState {
        let snapshot = try await StoreSnapshot.take(store)
        return SyncedState(records: snapshot.records.mapValues(\.values), related: snapshot.related)
    }

    func difference(from other: SyncedState) -> String {
        var notes: [String] = []
        for key in Set(records.keys).union(other.records.keys) where records[key] != other.records[key] {
            notes.append(
                "\(key): \(records[key].map { "\($0)" } ?? "absent") ≠ \(other.records[key].map { "\($0)" } ?? "absent")"
            )
        }
        for key in Set(related.keys).union(other.related.keys) where related[key] != other.related[key] {
            notes.append("\(key): \(related[key] ?? []) ≠ \(other.related[key] ?? [])")
        }
        return notes.prefix(5).joined(separator: "; ")
    }
}

func expectSettled(
    _ stores: [Store], server: SyncServer, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
) async throws {
    let expected = try await SyncedState.take(server.store)
    for store in stores {
        let state = try await SyncedState.take(store)
        if state != expected {
            throw ConformanceFailure(
                "client and server differ: \(state.difference(from: expected))", fileID: fileID, filePath: filePath,
                line: line)
        }
        let pending = try await SyncEngine(store: store, remote: InProcessTransport(server: server)).pendingMutations()
        if !pending.isEmpty {
            throw ConformanceFailure(
                "outbox not empty: \(pending.count) mutation(s) left", fileID: fileID, filePath: filePath, line: line)
        }
    }
}

/// Syncs until a sync succeeds (faults make the first attempts fail); returns the failures seen.
@discardableResult
func syncUntilSettled(_ engine: SyncEngine, attempts: Int = 12) async throws -> Int {
    var failures = 0
    for _ in 0..<attempts {
        do {
            try await engine.syncNow()
            return failures
        } catch {
            failures += 1
        }
    }
    throw ConformanceFailure(
        "sync did not succeed in \(attempts) attempts", fileID: #fileID, filePath: #filePath, line: #line)
}

/// A wall clock a check sets by hand.
final class ManualClock: Sendable {
    private let time: Mutex<Date>
    init(_ start: Date) { time = Mutex(start) }
    var now: Date { time.withLock { $0 } }
    func set(_ date: Date) { time.withLock { $0 = date } }
}

enum SyncFault: String, CaseIterable, Sendable {
    case failBeforeApplying, failAfterApplying, failMidBatch, slow, offlineForThreeAttempts

    var faults: [FaultInjectingRemote.Fault] {
        switch self {
        case .failBeforeApplying: [.failBeforeApplying, .failBeforeApplying]
        case .failAfterApplying: [.failAfterApplying, .failAfterApplying]
        case .failMidBatch: [.failMidBatch, .failMidBatch]
        case .slow: [.slow(.milliseconds(30)), .slow(.milliseconds(30))]
        case .offlineForThreeAttempts: [.offline(attempts: 3)]
        }
    }
}

enum PolicyForSync: String, CaseIterable, Sendable {
    case serverWins, clientWins, propertyMerge, lastWriterWins, custom

    var policy: SyncClientConflictPolicy {
        switch self {
        case .serverWins: .serverWins
        case .clientWins: .clientWins
        case .propertyMerge: .propertyMerge
        case .lastWriterWins: .lastWriterWins
        case .custom:
            // A domain rule: the server's record, but the client's name.
            .custom { conflict in
                guard var merged = conflict.server, let local = conflict.local else { return .serverWins }
                merged["name"] = local["name"]
                return .merged(merged)
            }
        }
    }
}
