/// The commit funnel.
extension Store {
    /// Every save — a repository's or a transaction's, a context's, a sync engine's push or pull,
    /// a sync server's apply — runs here: `body` stages through a ``SaveSession`` inside one
    /// backend write transaction and calls `commit` once, which runs the pipeline (delete rules,
    /// inverses, validation, writes with bumped versions, then the participants — the outbox when
    /// given — and the history entry); work after `commit` stays in the same transaction. Once the
    /// transaction is durable, observers are woken. A save that throws anywhere writes nothing and
    /// wakes no one.
    func commit<T: Sendable>(
        author: String?, contextName: String?, participants: [any CommitParticipant], collectWritten: Bool = false,
        _ body: @escaping @Sendable (
            _ session: SaveSession, _ transaction: any StorageWriteTransaction, _ commit: () throws -> SaveSession.Outcome
        ) throws -> T
    ) async throws -> T {
        let executor = executor
        let (value, committed) = try await backend.write { transaction -> (T, CommitHub.Commit?) in
            let session = SaveSession(transaction: transaction, executor: executor)
            var outcome: SaveSession.Outcome?
            let value = try body(session, transaction) {
                if let outcome { return outcome }
                let committed = try session.commit(
                    author: author, contextName: contextName, collectWritten: collectWritten, participants: participants)
                outcome = committed
                return committed
            }
            guard let outcome, let token = outcome.token else { return (value, nil) }
            return (value, CommitHub.Commit(token: token, entities: Set(outcome.changes.map(\.entity))))
        }
        if let committed { hub.committedHere(committed) }
        return value
    }
}
