import Foundation
import Strata
import Synchronization

/// Ends long polls early: a server shutting down cancels it, and every pull waiting on it answers
/// at once with what it has.
public final class WaitCancellation: Sendable {
    private struct State {
        var cancelled = false
        var waiters: [UUID: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    /// A cancellation nobody has triggered yet.
    public init() {}

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Wakes every waiter now and every later one at once.
    public func cancel() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.cancelled = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for wake in waiters { wake() }
    }

    /// Registers `wake`; returns nil (and does not register) when already cancelled.
    func register(_ wake: @escaping @Sendable () -> Void) -> UUID? {
        state.withLock { state in
            guard !state.cancelled else { return nil }
            let id = UUID()
            state.waiters[id] = wake
            return id
        }
    }

    func unregister(_ id: UUID) {
        _ = state.withLock { $0.waiters.removeValue(forKey: id) }
    }
}

/// Waits for the first commit after a history position, a deadline, a cancellation, or the
/// task's cancellation — whichever comes first.
package enum CommitWaiter {
    /// Returns true when a commit (or a purge, or a failure worth re-reading for) arrived.
    package static func wait(
        on hub: CommitHub, after position: HistoryToken?, until deadline: ContinuousClock.Instant,
        stop: WaitCancellation?
    ) async -> Bool {
        let outcome = Mutex<(done: Bool, woken: Bool, continuation: CheckedContinuation<Bool, Never>?)>(
            (false, false, nil))
        @Sendable func finish(_ woken: Bool) {
            let continuation = outcome.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard !state.done else { return nil }
                state.done = true
                state.woken = woken
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(returning: woken)
        }
        let subscription = hub.subscribe(after: position, entities: nil) { _ in finish(true) }
        let stopID = stop?.register { finish(false) }
        if stop != nil, stopID == nil { finish(false) }
        let timer = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            finish(false)
        }
        let woken = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let resumeNow = outcome.withLock { state -> Bool? in
                    if state.done { return state.woken }
                    state.continuation = continuation
                    return nil
                }
                if let resumeNow { continuation.resume(returning: resumeNow) }
            }
        } onCancel: {
            finish(false)
        }
        timer.cancel()
        hub.unsubscribe(subscription)
        if let stopID { stop?.unregister(stopID) }
        return woken
    }
}
