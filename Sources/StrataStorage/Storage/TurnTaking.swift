/// Lets async work of one owner run one at a time, in arrival order, without blocking a thread.
/// Used by actors whose operations suspend midway (a context's save, a sync engine's run), where
/// actor isolation alone would let a second call interleave.
package struct TurnTaking {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    package init() {}

    /// Whether a turn is free now (then it is taken). When not, `enqueue(_:)` a continuation.
    package mutating func tryTake() -> Bool {
        guard !busy else { return false }
        busy = true
        return true
    }

    /// Queues a waiter; `release()` hands it the turn directly.
    package mutating func enqueue(_ continuation: CheckedContinuation<Void, Never>) {
        waiting.append(continuation)
    }

    /// Ends the current turn, handing it to the next waiter if there is one.
    package mutating func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
