/// A typed fetch: a predicate, sort keys, limit and offset.
///
/// ```swift
/// Query<Trip>.where(\.start > .now).sorted(by: \.start).sorted(by: \.name, .descending).limit(20)
/// ```
public struct Query<Model: PersistentModel>: Sendable {
    /// The filter, or `nil` for every record.
    public var predicate: Filter<Model>?
    /// Sort keys, most significant first; ID ascending always breaks ties.
    public var sort: [SortKey] = []
    /// At most this many results.
    public var limit: Int?
    /// Results to skip before the first returned.
    public var offset: Int = 0
    var failure: StrataError?

    /// A query with an optional filter.
    public init(_ predicate: Filter<Model>? = nil) {
        self.predicate = predicate
        self.failure = predicate?.failure
    }

    /// Every record of the entity.
    public static var all: Query { Query() }

    /// A query with a filter: `Query<Trip>.where(\.budget > 100)`.
    public static func `where`(_ predicate: Filter<Model>) -> Query { Query(predicate) }

    /// Narrows the query (`and` with any existing predicate).
    public func `where`(_ predicate: Filter<Model>) -> Query {
        var copy = self
        copy.predicate = self.predicate.map { $0 && predicate } ?? predicate
        copy.failure = copy.failure ?? predicate.failure
        return copy
    }

    /// Adds a sort key after the existing ones.
    public func sorted<V: AttributeConvertible>(
        by keyPath: KeyPath<Model, V>, _ order: SortDirection = .ascending
    ) -> Query {
        sorted(byKeyPath: keyPath, ascending: order == .ascending)
    }

    /// Adds the sort key a key path names, or keeps the error naming it produced.
    func sorted(byKeyPath keyPath: PartialKeyPath<Model>, ascending: Bool) -> Query {
        var copy = self
        switch Model.entity.propertyName(keyPath) {
        case .success(let name): copy.sort.append(SortKey(name, ascending: ascending))
        case .failure(let error): copy.failure = copy.failure ?? error
        }
        return copy
    }

    /// Adds a sort key after the existing ones: a record's position in `owner`'s ordered to-many —
    /// the list's order (reversed descending), then every record that is not in the list, ordered
    /// by the keys that follow and the ID. The engine sorts by it: filter to the members
    /// (`\.trip == tripID`) so the read is the list's size, not the entity's.
    ///
    /// ```swift
    /// Query<Stop>.where(\.trip == tripID).sorted(byPositionIn: Trip.stops, of: tripID)
    /// ```
    ///
    /// A relationship that is not an ordered to-many of `Model` is `invalidQuery`; an owner that
    /// does not exist is `notFound` when the query runs. A page cursor cannot follow this key
    /// (its position is not a stored value); offset pages can.
    public func sorted<Owner: PersistentModel>(
        byPositionIn relationship: ToMany<Owner, Model>, of owner: Owner.ID, _ order: SortDirection = .ascending
    ) -> Query {
        var copy = self
        let list = ListPosition(entity: Owner.entityName, relationship: relationship.name, owner: owner.recordID)
        copy.sort.append(SortKey(position: list, ascending: order == .ascending))
        return copy
    }

    /// Returns at most `count` results.
    public func limit(_ count: Int) -> Query {
        var copy = self
        copy.limit = count
        return copy
    }

    /// Skips the first `count` results.
    public func offset(_ count: Int) -> Query {
        var copy = self
        copy.offset = count
        return copy
    }

    /// The untyped plan, or the error a key path produced.
    public func plan() throws -> FetchPlan {
        if let failure { throw failure }
        return FetchPlan(
            entity: Model.entityName, predicate: predicate?.expression, sort: sort, limit: limit, offset: offset)
    }
}
