/// A context's pending changes, as ``ModelContext/pendingChanges`` reports them.
public struct ContextChanges: Sendable, Hashable {
    /// Records inserted here, in order.
    public var inserted: [RecordKey] = []
    /// Records updated here, with the properties (and to-many relationships) changed.
    public var updated: [RecordKey: [String]] = [:]
    /// Records deleted here, in order.
    public var deleted: [RecordKey] = []

    /// Whether nothing is pending.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// What a context's save did.
public struct ContextSaveResult: Sendable {
    /// The history token of the save; `nil` when nothing was written.
    public var token: HistoryToken?
    /// The conflicts found and resolved by the merge policy (empty when there were none).
    public var conflicts: [MergeConflict]
}
