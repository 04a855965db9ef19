/// Something that takes part in every commit beside the records and the history entry, inside
/// the save's write transaction: the sync outbox today; what observation and migrations need
/// next. The engine calls each participant after the records are written and before the history
/// entry, in order; a throw rolls the whole save back. The engine knows nothing of what a
/// participant does — it hands over the save's changes as written.
package protocol CommitParticipant: Sendable {
    func participate(in commit: CommitInProgress, transaction: any StorageWriteTransaction) throws
    /// History before `token` is being purged in `transaction`: removes what the participant
    /// keeps beside it (history itself knows nothing of participants).
    func purge(before token: HistoryToken, in transaction: any StorageWriteTransaction) throws
    /// Whether the participant reads the last state of the records of `entity` a save deletes
    /// (`commit.workingSet.entry(key)?.original`); when none does, a cascade may delete children
    /// without reading their values.
    func readsDeletedRecords(of entity: String) -> Bool
}

extension CommitParticipant {
    /// Keeps nothing beside history.
    package func purge(before token: HistoryToken, in transaction: any StorageWriteTransaction) throws {}
    /// Reads no deleted record's values.
    package func readsDeletedRecords(of entity: String) -> Bool { false }
}

/// A save's changes as written, handed to each `CommitParticipant`.
package struct CommitInProgress {
    /// Every change, in save order.
    package let changes: [HistoryChange]
    /// The record as written for each change (nil for a delete), in the order of `changes`.
    let records: [Record?]
    /// The save's staged state, for link lists before and after.
    package let workingSet: WorkingSet
}
