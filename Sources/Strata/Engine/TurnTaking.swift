/// Lets async work of one owner run one at a time, in arrival order, without blocking a thread.
/// Used by actors whose operations suspend midway (a context's save, a sync engine's run), where
/// actor isolation alone would let a second call interleave.
struct TurnTaking {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Whether a turn is free now (then it is taken). When not, ``enqueue(_:)`` a continuation.
    mutating func tryTake() -> Bool {
        guard !busy else { return false }
        busy = true
        return true
    }

    /// Queues a waiter; ``release()`` hands it the turn directly.
    mutating func enqueue(_ continuation: CheckedContinuation<Void, Never>) {
        waiting.append(continuation)
    }

    /// Ends the current turn, handing it to the next waiter if there is one.
    mutating func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
