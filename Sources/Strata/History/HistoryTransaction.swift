import Foundation

/// A position in a store's history. Monotonic: a later save has a greater token.
public struct HistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    public let value: Int64
    public init(_ value: Int64) { self.value = value }
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool { lhs.value < rhs.value }
    public var description: String { String(value) }
}

/// One committed save: who made it, when, and what it changed.
public struct HistoryTransaction: Sendable, Hashable, Codable {
    public var token: HistoryToken
    public var timestamp: Date
    public var author: String?
    public var contextName: String?
    public var changes: [HistoryChange]
}

/// One record's change within a ``HistoryTransaction``.
public struct HistoryChange: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case insert, update, delete
    }

    public var kind: Kind
    public var entity: String
    public var id: RecordID
    /// For updates: the properties (attributes, to-ones, link-list relationships) that changed.
    /// For inserts: the properties given a non-null value. Empty for deletes.
    public var changedProperties: [String]
    /// The record's version after the change (the deleted version for deletes).
    public var version: Int64
}
