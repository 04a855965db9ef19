/// One sort key: a stored property and a direction. Nulls sort first ascending, last descending;
/// records that tie on every key are ordered by ID ascending, so results are deterministic.
public struct SortKey: Sendable, Hashable {
    public var property: String
    public var ascending: Bool

    public init(_ property: String, ascending: Bool = true) {
        self.property = property
        self.ascending = ascending
    }
}

/// The direction of a sort key.
public enum SortOrder: Sendable, Hashable {
    case ascending, descending
}
