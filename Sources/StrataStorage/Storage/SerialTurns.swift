import Synchronization

/// Lets async operations through one at a time, in arrival order, without blocking a thread:
/// a turn queue behind a lock, for a `Sendable` owner that is not an actor (a backend whose
/// writers must not each hold a connection while they wait their turn).
public final class SerialTurns: Sendable {
    private let turns = Mutex(TurnTaking())

    /// A queue with nobody waiting.
    public init() {}

    /// Runs `body` once every earlier call's body has finished.
    public func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = turns.withLock { turns in
                if turns.tryTake() { return true }
                turns.enqueue(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        defer { turns.withLock { $0.release() } }
        return try await body()
    }
}
