/// One sort key: a stored property and a direction. Nulls sort first ascending, last descending;
/// records that tie on every key are ordered by ID ascending, so results are deterministic.
public struct SortKey: Sendable, Hashable {
    /// The stored property sorted by.
    public var property: String
    /// Ascending (nulls first) or descending (nulls last).
    public var ascending: Bool

    /// A sort key on a stored property.
    public init(_ property: String, ascending: Bool = true) {
        self.property = property
        self.ascending = ascending
    }
}

/// The direction of a sort key (named apart from Foundation's `SortOrder`, which `import Foundation` brings).
public enum SortDirection: Sendable, Hashable {
    /// Smallest first; nulls first.
    case ascending
    /// Largest first; nulls last.
    case descending
}
