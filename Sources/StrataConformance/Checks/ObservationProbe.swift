import Foundation
import Strata
import Synchronization

/// Consumes an observation in a task of its own and keeps every delivered value, so checks can
/// wait for the Nth value with a deadline instead of blocking on the sequence.
final class ObservationProbe<Model: PersistentModel>: Sendable {
    /// What the consuming task writes; the task holds this, not the probe, so dropping the probe
    /// cancels the task.
    private final class Inbox: Sendable {
        let received = Mutex<[QueryResults<Model>]>([])
        let failure = Mutex<(any Error)?>(nil)
    }

    private let inbox = Inbox()
    private let task: Task<Void, Never>
    /// How long a check waits for a value that should come: generous, since it costs nothing
    /// when the value comes. Under the whole suite on two cores, checks against the in-memory
    /// backend — whose saves never suspend — can keep a new task from running for over ten seconds.
    static var patience: Duration { .seconds(60) }
    /// How long a check waits to be sure a value does not come.
    static var quiet: Duration { .milliseconds(300) }

    init<Observation: AsyncSequence & Sendable>(_ observation: Observation)
    where Observation.Element == QueryResults<Model> {
        let inbox = inbox
        task = Task {
            do {
                for try await results in observation {
                    inbox.received.withLock { $0.append(results) }
                }
            } catch {
                inbox.failure.withLock { $0 = error }
            }
        }
    }

    var values: [QueryResults<Model>] { inbox.received.withLock { $0 } }
    /// The error the observation ended with, if it did.
    var failure: (any Error)? { inbox.failure.withLock { $0 } }

    /// Waits for the observation to end with an error and returns it.
    func waitForFailure(_ what: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line)
        async throws -> any Error
    {
        try await eventually(what, { self.failure != nil }, fileID: fileID, filePath: filePath, line: line)
        return try expectNotNil(failure, what, fileID: fileID, filePath: filePath, line: line)
    }

    /// The first `count` values; fails when they do not arrive within ``patience``.
    func wait(
        for count: Int, _ what: String = "", fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) async throws -> [QueryResults<Model>] {
        let deadline = ContinuousClock.now + Self.patience
        let wait = "value \(count) of an observation\(what.isEmpty ? "" : " (\(what))"), \(values.count) received"
        let received: [QueryResults<Model>]? = try await CheckProgress.waiting(for: wait) {
            while ContinuousClock.now < deadline {
                if let error = inbox.failure.withLock({ $0 }) { throw error }
                let values = self.values
                if values.count >= count { return values }
                try await Task.sleep(for: .milliseconds(5))
            }
            return nil
        }
        if let received { return received }
        try expect(
            false, "expected \(count) value(s) \(what), got \(values.count)", fileID: fileID, filePath: filePath,
            line: line)
        return values
    }

    /// Waits ``quiet`` and checks that no more than `count` values arrived.
    func expectNoMore(
        than count: Int, _ what: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
    ) async throws {
        try await Task.sleep(for: Self.quiet)
        try expectEqual(values.count, count, what, fileID: fileID, filePath: filePath, line: line)
    }

    func cancel() { task.cancel() }

    deinit { task.cancel() }
}

/// Waits until `condition` holds, up to `patience`.
func eventually(
    _ what: String, patience: Duration = .seconds(60), _ condition: () async throws -> Bool,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
) async throws {
    let deadline = ContinuousClock.now + patience
    let held = try await CheckProgress.waiting(for: what) {
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
    try expect(held, "never: \(what)", fileID: fileID, filePath: filePath, line: line)
}
