import Strata
import Synchronization

/// A backend wrapper that makes one write transaction fail on purpose, so any backend can prove
/// that a failed save leaves nothing behind: fail the Nth write operation (put, delete, link list
/// or metadata) of the next write transaction, or fail at commit, after every write succeeded.
///
/// The failure is thrown inside the wrapped backend's write closure, as a real I/O error would
/// be, so the wrapped backend rolls everything back; the caller sees a
/// `StrataError.Code.storageFailure`.
///
/// ```swift
/// let faulty = FaultInjectingBackend(wrapping: store.backend)
/// let store = Store(backend: faulty)
/// faulty.inject(.failWrite(3))      // the next save fails at its third write
/// ```
public final class FaultInjectingBackend: StorageBackend {
    /// What the next write transaction does wrong.
    public enum Fault: Sendable, Hashable, CustomStringConvertible {
        /// The `n`th write operation (1-based) throws.
        case failWrite(Int)
        /// Every write succeeds, then the transaction throws instead of committing.
        case failAtCommit
        /// Every write succeeds, then the transaction throws `diskFull` instead of committing, as
        /// a write that finds no room on the disk does.
        case diskFullAtCommit

        public var description: String {
            switch self {
            case .failWrite(let n): "write \(n) fails"
            case .failAtCommit: "the commit fails"
            case .diskFullAtCommit: "the disk is full at the commit"
            }
        }
    }

    /// The backend doing the real work.
    public let wrapped: any StorageBackend
    private let pending = Mutex<Fault?>(nil)
    private let lastWrites = Mutex<Int>(0)

    /// Wraps `backend`; no fault is armed until a check arms one.
    public init(wrapping backend: any StorageBackend) {
        self.wrapped = backend
    }

    public var schema: Schema { wrapped.schema }
    public var capabilities: FetchCapabilities { wrapped.capabilities }
    public var sharedIdentity: String? { wrapped.sharedIdentity }
    public var externalCommits: ExternalCommitPolling? { wrapped.externalCommits }

    /// Arms a fault for the next write transaction (it is used up by that transaction, whether
    /// or not it reaches the failing write).
    public func inject(_ fault: Fault) { pending.withLock { $0 = fault } }

    /// How many write operations the last write transaction made (to enumerate every fault point).
    public var writesInLastTransaction: Int { lastWrites.withLock { $0 } }

    private struct ReadGate {
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
        var failing = false
        /// Reads past the gate and not finished: one of them may still take its snapshot later.
        var active = 0
    }

    private let gate = Mutex(ReadGate())

    /// Makes every read wait until ``releaseReads()`` (writes go on): a check can let commits and
    /// purges happen while an observer is stuck before its history read. Returns once the reads
    /// already past the gate have finished, since one of them could otherwise take its snapshot
    /// after a commit the check makes next.
    public func holdReads() async {
        gate.withLock { $0.held = true }
        while gate.withLock({ $0.active > 0 }) {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Lets held reads, and later ones, through.
    public func releaseReads() {
        let waiting = gate.withLock { gate in
            gate.held = false
            gate.active += gate.waiting.count
            defer { gate.waiting.removeAll() }
            return gate.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// While on, every read fails with `StrataError.Code.storageFailure` before reaching the
    /// wrapped backend, as an I/O error would.
    public func failReads(_ on: Bool) { gate.withLock { $0.failing = on } }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws
        -> T
    {
        await withCheckedContinuation { continuation in
            let pass = gate.withLock { gate -> Bool in
                if gate.held { gate.waiting.append(continuation) } else { gate.active += 1 }
                return !gate.held
            }
            if pass { continuation.resume() }
        }
        defer { gate.withLock { $0.active -= 1 } }
        if gate.withLock({ $0.failing }) { throw StrataError(.storageFailure, "injected fault: the read fails") }
        return try await wrapped.read(body)
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws
        -> T
    {
        let fault = pending.withLock { fault in
            defer { fault = nil }
            return fault
        }
        return try await wrapped.write { [self] transaction in
            let faulty = FaultyWriteTransaction(
                transaction, failAt: fault.flatMap { if case .failWrite(let n) = $0 { n } else { nil } })
            defer { lastWrites.withLock { $0 = faulty.writes } }
            let result = try body(faulty)
            if fault == .failAtCommit { throw StrataError(.storageFailure, "injected fault: the commit fails") }
            if fault == .diskFullAtCommit { throw StrataError(.diskFull, "injected fault: the disk is full") }
            return result
        }
    }

    public func close() async throws { try await wrapped.close() }
}

/// Forwards to the real transaction, counting writes and throwing at the chosen one.
final class FaultyWriteTransaction: ForwardingReadTransaction, StorageWriteTransaction {
    let base: any StorageWriteTransaction
    let failAt: Int?
    private(set) var writes = 0

    init(_ base: any StorageWriteTransaction, failAt: Int?) {
        self.base = base
        self.failAt = failAt
    }

    private func write() throws {
        writes += 1
        if writes == failAt { throw StrataError(.storageFailure, "injected fault: write \(writes) fails") }
    }

    var readsGoTo: any StorageReadTransaction { base }

    func put(_ record: Record) throws {
        try write()
        try base.put(record)
    }
    func delete(_ entity: String, id: RecordID) throws {
        try write()
        try base.delete(entity, id: id)
    }
    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        try write()
        try base.setLinks(entity, relationship: relationship, from: owner, to: targets)
    }
    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        try write()
        try base.setMetadata(key, value)
    }
}
