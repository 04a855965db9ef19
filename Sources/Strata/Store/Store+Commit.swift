import CoreMetrics
import Logging
import Synchronization

/// The commit funnel.
extension Store {
    /// Every save — a repository's or a transaction's, a context's, a sync engine's push or pull,
    /// a sync server's apply, a loader's batch — runs here, in two phases inside one backend write
    /// transaction:
    /// 1. `stage` stages the save's changes through a `SaveSession` (reading through the session or
    ///    the read-only transaction it is given); then the engine runs the pipeline — delete rules,
    ///    inverses, validation, writes with bumped versions, the participants (the outbox when
    ///    given), the history entry;
    /// 2. `afterCommit` runs in the same transaction with what the stage returned and the outcome
    ///    (the token, the records as written): read-back, and writes that belong to no record
    ///    (metadata a caller keeps beside the save).
    ///
    /// Nobody commits by hand: the pipeline runs exactly once, between the two. Once the
    /// transaction is durable, observers are woken. A save that throws anywhere writes nothing and
    /// wakes no one.
    package func commit<Staged, T: Sendable>(
        author: String?, contextName: String?, participants: [any CommitParticipant], collectWritten: Bool = false,
        stage: @escaping @Sendable (_ session: SaveSession, _ reader: any StorageReadTransaction) throws -> Staged,
        afterCommit:
            @escaping @Sendable (
                _ staged: Staged, _ outcome: SaveSession.Outcome, _ transaction: any StorageWriteTransaction
            ) throws -> T
    ) async throws -> T {
        let (executor, hooks) = (executor, hooks)
        let started = ContinuousClock.now
        let (value, committed, changes): (T, CommitHub.Commit?, Int)
        let hooked = Mutex<CommittedSave?>(nil)
        do {
            (value, committed, changes) = try await backend.write { transaction in
                let session = SaveSession(transaction: transaction, executor: executor)
                session.hooks = hooks
                let staged = try stage(session, transaction)
                let outcome = try session.commit(
                    author: author, contextName: contextName, collectWritten: collectWritten, participants: participants
                )
                let value = try afterCommit(staged, outcome, transaction)
                guard let token = outcome.token else { return (value, nil, 0) }
                if outcome.ranHooks, !hooks.committed.isEmpty {
                    hooked.withLock { $0 = CommittedSave(token: token, changes: outcome.changes, author: author) }
                }
                return (
                    value, CommitHub.Commit(token: token, entities: Set(outcome.changes.map(\.entity))),
                    outcome.changes.count
                )
            }
        } catch {
            report(failed: error, author: author, contextName: contextName)
            throw error
        }
        report(committed: changes, after: ContinuousClock.now - started, author: author, contextName: contextName)
        if let committed { hub.committedHere(committed) }
        if let save = hooked.withLock({ $0 }) {
            for hook in hooks.committed { hook.body(save) }
        }
        return value
    }

    /// A save whose result is what `stage` returns (nothing to do after the commit).
    package func commit<T: Sendable>(
        author: String?, contextName: String?, participants: [any CommitParticipant],
        stage: @escaping @Sendable (_ session: SaveSession, _ reader: any StorageReadTransaction) throws -> T
    ) async throws -> (value: T, token: HistoryToken?) {
        try await commit(
            author: author, contextName: contextName, participants: participants, stage: stage,
            afterCommit: { staged, outcome, _ in (value: staged, token: outcome.token) })
    }

    /// The metadata door: every write that changes no record — a history purge, a recorded
    /// declaration, a loader's bookkeeping, a history copy — runs here, in one backend write
    /// transaction, so it is atomic and the only other way (besides the save funnel) into the
    /// store. `wakes` wakes observers once it is durable (what changes history).
    package func writeMetadata<T: Sendable>(
        wakes: Bool = false, _ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T
    ) async throws -> T {
        let value = try await backend.write(body)
        if wakes { hub.committedHere(nil) }
        return value
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
