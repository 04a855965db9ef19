import Foundation

/// A position in a store's history. Monotonic: a later save has a greater token.
public struct HistoryToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The position; greater is later.
    public let value: Int64
    /// A token at a position.
    public init(_ value: Int64) { self.value = value }
    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool { lhs.value < rhs.value }
    public var description: String { String(value) }
}

extension HistoryToken {
    /// The metadata key under which the engine keeps the newest history token (its decimal
    /// digits): what a backend or a tool reads to say up to which save a damaged store was kept.
    public static let lastTokenMetadataKey = MetadataKeys.lastHistoryToken

    /// The newest history token recorded in `transaction`'s metadata, if any and readable.
    public static func last(in transaction: any StorageReadTransaction) -> HistoryToken? {
        try? newest(in: transaction)
    }

    /// The newest history token recorded in `transaction`'s metadata; an unreadable counter is
    /// ``StrataError/Code/corruptStore``.
    package static func newest(in transaction: any StorageReadTransaction) throws -> HistoryToken? {
        guard let bytes = try transaction.metadata(lastTokenMetadataKey) else { return nil }
        guard let text = String(bytes: bytes, encoding: .utf8), let value = Int64(text) else {
            throw StrataError(.corruptStore, "history counter is unreadable")
        }
        return HistoryToken(value)
    }
}
