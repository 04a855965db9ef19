import Foundation
import Strata
import StrataSync

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

    /// The remote calls pass through to.
    public let remote: any SyncRemote
    private var faults: [Fault]
    private var offlineLeft = 0
    private var pushFailuresLeft = 0
    /// Calls made, failures injected, and batches the server actually received.
    public private(set) var pushAttempts = 0
    /// Pulls attempted so far.
    public private(set) var pullAttempts = 0
    /// Failures injected so far.
    public private(set) var failuresInjected = 0
    /// The size of every push batch attempted, in order.
    public private(set) var batchSizes: [Int] = []

    /// Wraps `remote`, injecting `faults` in order.
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
            let half = PushRequest(
                clientID: request.clientID,
                mutations: Array(request.mutations.prefix(max(1, request.mutations.count / 2))),
                schemaVersion: request.schemaVersion)
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

    /// Passes file pieces through, offline when the network is.
    public func upload(_ bytes: Data, of file: FileReference, at offset: Int64) async throws -> FileTransferState {
        if takeOffline() { throw SyncTransportError("offline") }
        return try await remote.upload(bytes, of: file, at: offset)
    }

    /// Passes file pieces through, offline when the network is.
    public func download(_ file: FileReference, from offset: Int64) async throws -> Data {
        if takeOffline() { throw SyncTransportError("offline") }
        return try await remote.download(file, from: offset)
    }
}
