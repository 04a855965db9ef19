import Synchronization

/// How a check's run ended under its deadline.
enum DeadlineOutcome: Sendable {
    /// The check returned or threw in time.
    case finished(Result<Void, any Error>)
    /// It was still running at its deadline, waiting for what the list names (innermost last;
    /// empty when in no wait the suite knows of). It was cancelled then, and not waited for
    /// beyond the grace that followed.
    case overran(waitingFor: [String], state: String)
}

/// Runs `body` in a task of its own and waits for it at most `deadline`; then asks `state` what
/// the check's stores hold (before anything is cancelled or closed), cancels `body`, gives it
/// `grace` to end, and returns ``DeadlineOutcome/overran(waitingFor:state:)`` without waiting
/// further — a check spinning in a loop that never suspends is left behind, so the run goes on.
func runWithDeadline(
    _ deadline: Duration, grace: Duration, progress: CheckProgress,
    state: @escaping @Sendable () async -> String = { "" },
    _ body: @escaping @Sendable () async throws -> Void
) async -> DeadlineOutcome {
    let gate = OutcomeGate()
    return await withCheckedContinuation { continuation in
        gate.arm(continuation)
        let timer = Task {
            // Cancelled when the work ended in time: nothing more to do.
            do { try await Task.sleep(for: deadline) } catch { return }
            let waits = progress.waitingFor
            gate.deadlinePassed(waits)
            let described = await state()
            gate.described(described)
            gate.work.withLock { $0 }?.cancel()
            try? await Task.sleep(for: grace)
            gate.resume(.overran(waitingFor: waits, state: described))
        }
        let work = Task {
            let result: Result<Void, any Error>
            do {
                try await CheckProgress.$current.withValue(progress) { try await body() }
                result = .success(())
            } catch {
                result = .failure(error)
            }
            // Ending after the deadline (say, by the cancellation) is still an overrun; its state
            // is what the timer read, once it has.
            if let waits = gate.waitsAtDeadline {
                while gate.state == nil { try? await Task.sleep(for: .milliseconds(10)) }
                gate.resume(.overran(waitingFor: waits, state: gate.state ?? ""))
            } else {
                gate.resume(.finished(result))
                timer.cancel()
            }
        }
        gate.work.withLock { $0 = work }
    }
}

/// The first outcome wins; later ones are dropped.
private final class OutcomeGate: Sendable {
    private let continuation = Mutex<CheckedContinuation<DeadlineOutcome, Never>?>(nil)
    private let waits = Mutex<[String]?>(nil)
    private let stores = Mutex<String?>(nil)
    let work = Mutex<Task<Void, Never>?>(nil)

    func arm(_ continuation: CheckedContinuation<DeadlineOutcome, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// Marks the deadline passed, with what the check was waiting for then.
    func deadlinePassed(_ waitingFor: [String]) { waits.withLock { $0 = waitingFor } }
    /// What the check was waiting for at its deadline; `nil` before it.
    var waitsAtDeadline: [String]? { waits.withLock { $0 } }

    /// Keeps what the stores held at the deadline.
    func described(_ state: String) { stores.withLock { $0 = state } }
    /// What the stores held at the deadline; `nil` until read.
    var state: String? { stores.withLock { $0 } }

    func resume(_ outcome: DeadlineOutcome) {
        let waiting = continuation.withLock { current -> CheckedContinuation<DeadlineOutcome, Never>? in
            defer { current = nil }
            return current
        }
        waiting?.resume(returning: outcome)
    }
}
