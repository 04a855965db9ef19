/// One sort key: a stored property and a direction, or a record's position in one owner's ordered
/// to-many. Nulls sort first ascending, last descending; records that tie on every key are
/// ordered by ID ascending, so results are deterministic.
public struct SortKey: Sendable, Hashable {
    /// The stored property sorted by (for a position key, the relationship's name).
    public var property: String
    /// Ascending (nulls first) or descending (nulls last).
    public var ascending: Bool
    /// Set for a position key: the engine sorts by it and a backend is never sent one.
    public var position: ListPosition?
    /// Set for a relevance key: the name of the full-text index whose search in the predicate
    /// ranks the records. The engine sorts by it and a backend is never sent one.
    public var relevance: String?

    /// A sort key on a stored property.
    public init(_ property: String, ascending: Bool = true) {
        self.property = property
        self.ascending = ascending
    }

    /// A sort key on relevance to the predicate's search of the full-text index `index`: the
    /// most relevant first (by ``SearchScoring``'s score, ties by ID ascending), the least
    /// relevant first when `ascending` is false; records the search does not match come last
    /// either way.
    public init(relevanceOf index: String, ascending: Bool = true) {
        self.property = index
        self.ascending = ascending
        self.relevance = index
    }

    /// A sort key on a record's position in `position`'s list.
    public init(position: ListPosition, ascending: Bool = true) {
        self.property = position.relationship
        self.ascending = ascending
        self.position = position
    }
}

/// One owner's ordered to-many, as a sort key: its members in the list's order (reversed when
/// descending), then every record that is not a member, ordered by the keys that follow. The
/// engine evaluates it; a backend is never sent one.
public struct ListPosition: Sendable, Hashable {
    /// The owner's entity.
    public var entity: String
    /// The ordered to-many of `entity` whose destination is the fetched entity.
    public var relationship: String
    /// The owner whose list orders the records.
    public var owner: RecordID

    /// One owner's ordered to-many.
    public init(entity: String, relationship: String, owner: RecordID) {
        self.entity = entity
        self.relationship = relationship
        self.owner = owner
    }
}

/// The direction of a sort key (named apart from Foundation's `SortOrder`, which `import Foundation` brings).
public enum SortDirection: Sendable, Hashable {
    /// Smallest first; nulls first.
    case ascending
    /// Largest first; nulls last.
    case descending
}
