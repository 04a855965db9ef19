import Synchronization

/// What a running check is doing, for the message of a check that overran its deadline: the wait
/// it is in (`eventually`, an observation probe's next value) and the stores it opened.
final class CheckProgress: Sendable {
    /// The progress of the check the current task works for (inherited by the tasks it starts).
    @TaskLocal static var current: CheckProgress?

    private let waits = Mutex<[String]>([])

    /// What the check is waiting for now, innermost last; empty when it is not in a wait the suite knows of.
    var waitingFor: [String] { waits.withLock { $0 } }

    /// Runs `body` as a wait for `what`.
    static func waiting<T>(for what: String, _ body: () async throws -> T) async rethrows -> T {
        guard let progress = current else { return try await body() }
        progress.waits.withLock { $0.append(what) }
        defer { progress.waits.withLock { list in if let last = list.lastIndex(of: what) { list.remove(at: last) } } }
        return try await body()
    }
}
