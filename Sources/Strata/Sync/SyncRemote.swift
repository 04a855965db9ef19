import Foundation

/// What a ``SyncEngine`` talks to: a server, directly or through a transport.
public protocol SyncRemote: Sendable {
    /// Sends a batch of mutations; the response says what became of each.
    func push(_ request: PushRequest) async throws -> PushResponse
    /// Fetches the changes after a cursor.
    func pull(_ request: PullRequest) async throws -> PullResponse
    /// Fetches one page of the server's whole state, for a client that must reset
    /// (``SyncTransportError/Kind/resetRequired``).
    func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse
}

extension SyncRemote {
    /// A remote written before snapshots existed cannot reset a client.
    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        throw SyncTransportError(.incompatible, "this remote does not serve snapshots, so the client cannot reset")
    }
}

/// The in-process transport, for tests and for embedding a server in the same process. With
/// ``Encoding/json`` (the default) every message is encoded to JSON and decoded on the other side,
/// as a network transport would, so what works here works over the wire; ``Encoding/none`` hands
/// the values over directly.
public struct InProcessTransport: SyncRemote {
    public enum Encoding: Sendable {
        case json, none
    }

    public let server: SyncServer
    public let encoding: Encoding

    public init(server: SyncServer, encoding: Encoding = .json) {
        self.server = server
        self.encoding = encoding
    }

    public func push(_ request: PushRequest) async throws -> PushResponse {
        guard encoding == .json else { return try await server.push(request) }
        return try Self.roundTrip(try await server.push(try Self.roundTrip(request)))
    }

    public func pull(_ request: PullRequest) async throws -> PullResponse {
        guard encoding == .json else { return try await server.pull(request) }
        return try Self.roundTrip(try await server.pull(try Self.roundTrip(request)))
    }

    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        guard encoding == .json else { return try await server.snapshot(request) }
        return try Self.roundTrip(try await server.snapshot(try Self.roundTrip(request)))
    }

    static func roundTrip<T: Codable>(_ message: T) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: try JSONEncoder().encode(message))
        } catch {
            throw StrataError(.storageFailure, underlying: error, "a sync message did not survive encoding: \(error)")
        }
    }
}


/// A remote that fails on demand, for tests of the engine's delivery guarantees.
public actor FaultInjectingRemote: SyncRemote {
    /// One planned failure.
    public enum Fault: Sendable, Hashable {
        /// The push fails before the server sees it.
        case failBeforeApplying
        /// The server applies the push, then the acknowledgement is lost.
        case failAfterApplying
        /// The server applies the first half of the batch, then the connection drops.
        case failMidBatch
        /// The call takes this long, then succeeds.
        case slow(Duration)
        /// This many calls (push or pull) fail as if the network were down.
        case offline(attempts: Int)
        /// This many pushes fail while pulls still work (an upload path that is down).
        case pushesFail(attempts: Int)
    }

    public let remote: any SyncRemote
    private var faults: [Fault]
    private var offlineLeft = 0
    private var pushFailuresLeft = 0
    /// Calls made, failures injected, and batches the server actually received.
    public private(set) var pushAttempts = 0
    public private(set) var pullAttempts = 0
    public private(set) var failuresInjected = 0
    public private(set) var batchSizes: [Int] = []

    public init(_ remote: any SyncRemote, faults: [Fault] = []) {
        self.remote = remote
        self.faults = faults
    }

    /// Queues more faults, consumed in order by the next calls they apply to.
    public func inject(_ more: [Fault]) { faults += more }

    private func takeOffline() -> Bool {
        if offlineLeft == 0, case .offline(let attempts)? = faults.first {
            faults.removeFirst()
            offlineLeft = attempts
        }
        guard offlineLeft > 0 else { return false }
        offlineLeft -= 1
        failuresInjected += 1
        return true
    }

    public func push(_ request: PushRequest) async throws -> PushResponse {
        pushAttempts += 1
        if takeOffline() { throw SyncTransportError("offline") }
        if pushFailuresLeft == 0, case .pushesFail(let attempts)? = faults.first {
            faults.removeFirst()
            pushFailuresLeft = attempts
        }
        if pushFailuresLeft > 0 {
            pushFailuresLeft -= 1
            failuresInjected += 1
            throw SyncTransportError("push endpoint unavailable")
        }
        let fault = faults.first.flatMap { fault -> Fault? in
            switch fault {
            case .offline, .pushesFail: return nil
            default: return fault
            }
        }
        if fault != nil { faults.removeFirst() }
        switch fault {
        case .failBeforeApplying?:
            failuresInjected += 1
            throw SyncTransportError("connection refused before the server read the batch")
        case .failAfterApplying?:
            batchSizes.append(request.mutations.count)
            _ = try await remote.push(request)
            failuresInjected += 1
            throw SyncTransportError("connection lost before the acknowledgement")
        case .failMidBatch?:
            let half = PushRequest(clientID: request.clientID, mutations: Array(request.mutations.prefix(max(1, request.mutations.count / 2))), schemaVersion: request.schemaVersion)
            batchSizes.append(half.mutations.count)
            _ = try await remote.push(half)
            failuresInjected += 1
            throw SyncTransportError("connection lost in the middle of the batch")
        case .slow(let delay)?:
            try await Task.sleep(for: delay)
        case .offline?, .pushesFail?, nil:
            break
        }
        batchSizes.append(request.mutations.count)
        return try await remote.push(request)
    }

    public func pull(_ request: PullRequest) async throws -> PullResponse {
        pullAttempts += 1
        if takeOffline() { throw SyncTransportError("offline") }
        return try await remote.pull(request)
    }

    public func snapshot(_ request: SnapshotRequest) async throws -> SnapshotResponse {
        pullAttempts += 1
        if takeOffline() { throw SyncTransportError("offline") }
        return try await remote.snapshot(request)
    }
}
