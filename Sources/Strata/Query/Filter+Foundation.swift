import Foundation

extension Filter {
    /// A filter from a Foundation `#Predicate`, so predicates written for SwiftData run here:
    ///
    /// ```swift
    /// let limit = 1_000.0
    /// let pricey = try await trips.fetch(where: #Predicate { $0.isFavorite && ($0.budget ?? 0) > limit })
    /// ```
    ///
    /// The predicate is translated into the filter tree when it is built (so a backend that
    /// evaluates filters runs it in SQL); what cannot be translated (see the list in the README)
    /// is `StrataError.Code.invalidQuery` naming the expression, thrown when the query runs.
    public init(_ predicate: Predicate<Model>) {
        self = PredicateTranslation.filter(predicate)
    }
}

extension Query {
    /// A query with a Foundation `#Predicate` as its filter.
    public init(_ predicate: Predicate<Model>) {
        self.init(Filter(predicate))
    }

    /// Narrows the query with a Foundation `#Predicate` (`and` with any existing filter).
    public func `where`(_ predicate: Predicate<Model>) -> Query {
        self.where(Filter(predicate))
    }

    /// Adds a Foundation `SortDescriptor` after the existing sort keys: its key path and order
    /// (`.forward` ascending, `.reverse` descending). Results follow the store's order — text
    /// by UTF-8 bytes, nulls first ascending — whatever comparator the descriptor names, as
    /// SwiftData's do when SQLite sorts. A descriptor without a key path (one built from a
    /// closure) is `StrataError.Code.invalidQuery` when the query runs.
    public func sorted(by descriptor: SortDescriptor<Model>) -> Query {
        guard let keyPath = descriptor.keyPath else {
            var copy = self
            copy.failure =
                copy.failure
                ?? StrataError(
                    .invalidQuery, entity: Model.entityName,
                    "a SortDescriptor without a key path cannot be sorted by in the store")
            return copy
        }
        return sorted(byKeyPath: keyPath, ascending: descriptor.order == .forward)
    }

    /// Adds Foundation `SortDescriptor`s in order, most significant first.
    public func sorted(by descriptors: [SortDescriptor<Model>]) -> Query {
        descriptors.reduce(self) { $0.sorted(by: $1) }
    }
}

extension ModelReading {
    /// The models a Foundation `#Predicate` matches, in ID order.
    public func fetch(where predicate: Predicate<Model>) async throws -> [Model] { try await fetch(Query(predicate)) }

    /// How many models a Foundation `#Predicate` matches.
    public func count(where predicate: Predicate<Model>) async throws -> Int { try await count(Query(predicate)) }
}

extension Repository {
    /// Deletes every model a Foundation `#Predicate` matches in one save; returns how many.
    @discardableResult
    public func delete(where predicate: Predicate<Model>) async throws -> Int {
        try await delete(where: Filter(predicate))
    }
}
