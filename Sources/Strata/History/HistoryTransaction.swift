import Foundation

/// One committed save: who made it, when, and what it changed.
public struct HistoryTransaction: Sendable, Hashable, Codable {
    /// The save's position in history.
    public var token: HistoryToken
    /// When the save committed.
    public var timestamp: Date
    /// Who saved, as the caller named it.
    public var author: String?
    /// The context that saved, as the caller named it.
    public var contextName: String?
    /// One change per record the save touched, in save order.
    public var changes: [HistoryChange]
}

/// One record's change within a ``HistoryTransaction``.
public struct HistoryChange: Sendable, Hashable, Codable {
    /// What happened to the record.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The record was created.
        case insert
        /// Some of the record's values or links changed.
        case update
        /// The record was removed.
        case delete
    }

    /// Insert, update or delete.
    public var kind: Kind
    /// The entity of the record.
    public var entity: String
    /// The ID of the record.
    public var id: RecordID
    /// For updates: the properties (attributes, to-ones, link-list relationships) that changed.
    /// For inserts: the properties given a non-null value. Empty for deletes.
    public var changedProperties: [String]
    /// The record's version after the change (the deleted version for deletes).
    public var version: Int64
}
