/// How a ``ModelContext`` resolves conflicts when it saves: records it changed that the store also
/// changed (or deleted) since the context read them, and inserts that clash with a stored record on
/// a unique constraint. The default is `error`.
///
/// | conflict | `error` | `objectTrumpByProperty` | `storeTrumpByProperty` | `overwrite` | `rollback` |
/// |---|---|---|---|---|---|
/// | updated here and in the store | throws | store's record + the properties this context changed | store's record + this context's changes to properties the store did not change | this context's whole record | store's record |
/// | updated here, deleted in the store | throws | this context's record is inserted again | stays deleted | inserted again | stays deleted |
/// | deleted here, updated in the store | throws | deleted | store's record stays | deleted | store's record stays |
/// | inserted here, clashes on a unique constraint | throws | merged into the stored record: its values overlaid with the new record's non-null ones | merged: the stored record keeps its values and takes only those it lacks | merged: the new record's values replace the stored record's | the new record is dropped |
///
/// In every merge of a uniqueness clash the stored record's ID survives and the context's
/// references to the new record are redirected to it. A to-many membership is a property of its
/// owner: "the properties this context changed" means its additions and removals, applied to the
/// store's current membership.
public enum MergePolicy: Sendable {
    /// The save throws `StrataError.Code.mergeConflict` listing every conflict; nothing is written.
    case error
    /// The context's changed properties win; everything else comes from the store.
    case objectTrumpByProperty
    /// The context's changes survive only for properties the store did not change.
    case storeTrumpByProperty
    /// The context's whole record replaces the stored one.
    case overwrite
    /// The context's changes to conflicting records are dropped; the store stands.
    case rollback
    /// The closure decides each conflict (it runs inside the save's write transaction: keep it quick).
    case custom(@Sendable (MergeConflict) throws -> MergeResolution)

    /// The name of the policy, for logs and the demo.
    public var name: String {
        switch self {
        case .error: "error"
        case .objectTrumpByProperty: "objectTrumpByProperty"
        case .storeTrumpByProperty: "storeTrumpByProperty"
        case .overwrite: "overwrite"
        case .rollback: "rollback"
        case .custom: "custom"
        }
    }
}

/// What a ``MergePolicy/custom(_:)`` closure decides for one conflict.
public enum MergeResolution: Sendable, Hashable {
    /// Resolve this conflict as ``MergePolicy/objectTrumpByProperty`` would.
    case objectTrumpByProperty
    /// Resolve this conflict as ``MergePolicy/storeTrumpByProperty`` would.
    case storeTrumpByProperty
    /// Resolve this conflict as ``MergePolicy/overwrite`` would.
    case overwrite
    /// Drop the context's change to this record.
    case rollback
    /// Write these values (attributes and to-ones) to the record — for a uniqueness clash, to the
    /// stored record, whose ID survives. The context's membership changes apply by property.
    case use(Record)
    /// Fail the save with `StrataError.Code.mergeConflict`.
    case fail
}
