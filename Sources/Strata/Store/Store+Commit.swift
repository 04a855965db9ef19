import CoreMetrics
import Logging

/// The commit funnel.
extension Store {
    /// Every save — a repository's or a transaction's, a context's, a sync engine's push or pull,
    /// a sync server's apply — runs here: `body` stages through a `SaveSession` inside one
    /// backend write transaction and calls `commit` once, which runs the pipeline (delete rules,
    /// inverses, validation, writes with bumped versions, then the participants — the outbox when
    /// given — and the history entry); work after `commit` stays in the same transaction. Once the
    /// transaction is durable, observers are woken. A save that throws anywhere writes nothing and
    /// wakes no one.
    package func commit<T: Sendable>(
        author: String?, contextName: String?, participants: [any CommitParticipant], collectWritten: Bool = false,
        _ body:
            @escaping @Sendable (
                _ session: SaveSession, _ transaction: any StorageWriteTransaction,
                _ commit: () throws -> SaveSession.Outcome
            ) throws -> T
    ) async throws -> T {
        let executor = executor
        let started = ContinuousClock.now
        let (value, committed, changes): (T, CommitHub.Commit?, Int)
        do {
            (value, committed, changes) = try await write(
                executor, author: author, contextName: contextName, participants: participants,
                collectWritten: collectWritten, body)
        } catch {
            report(failed: error, author: author, contextName: contextName)
            throw error
        }
        report(committed: changes, after: ContinuousClock.now - started, author: author, contextName: contextName)
        if let committed { hub.committedHere(committed) }
        return value
    }

    private func write<T: Sendable>(
        _ executor: QueryExecutor, author: String?, contextName: String?, participants: [any CommitParticipant],
        collectWritten: Bool,
        _ body:
            @escaping @Sendable (
                _ session: SaveSession, _ transaction: any StorageWriteTransaction,
                _ commit: () throws -> SaveSession.Outcome
            ) throws -> T
    ) async throws -> (T, CommitHub.Commit?, Int) {
        try await backend.write { transaction -> (T, CommitHub.Commit?, Int) in
            let session = SaveSession(transaction: transaction, executor: executor)
            var outcome: SaveSession.Outcome?
            let value = try body(session, transaction) {
                if let outcome { return outcome }
                let committed = try session.commit(
                    author: author, contextName: contextName, collectWritten: collectWritten, participants: participants
                )
                outcome = committed
                return committed
            }
            guard let outcome, let token = outcome.token else { return (value, nil, 0) }
            return (
                value, CommitHub.Commit(token: token, entities: Set(outcome.changes.map(\.entity))),
                outcome.changes.count
            )
        }
    }

    /// A save's counters and timer, and a warning when it was slow (counts and names, no values).
    private func report(committed changes: Int, after duration: Duration, author: String?, contextName: String?) {
        let instrumentation = instrumentation
        instrumentation.counter("strata_saves_total", store: metricsName, [("outcome", "committed")]).increment()
        instrumentation.timer("strata_save_duration", store: metricsName).recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        guard duration > instrumentation.slowSave else { return }
        instrumentation.logger.warning(
            "slow save",
            metadata: [
                "store": "\(logName)", "duration": "\(duration)", "changes": "\(changes)",
                "author": "\(author ?? "-")", "context": "\(contextName ?? "-")",
            ])
    }

    private func report(failed error: any Error, author: String?, contextName: String?) {
        instrumentation.counter("strata_saves_total", store: metricsName, [("outcome", "failed")]).increment()
        instrumentation.logger.debug(
            "save failed",
            metadata: [
                "store": "\(logName)", "code": "\(StoreInstrumentation.kind(of: error))",
                "author": "\(author ?? "-")", "context": "\(contextName ?? "-")",
            ])
    }
}
