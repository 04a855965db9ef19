/// Typed aggregates over any ``ModelReading``: the repository's own (committed state), a
/// context's (pending changes included) or a test double's.
extension ModelReading {
    /// Aggregates over the models a filter matches (every model when nil), one result per
    /// aggregate in its own type: `let (n, total) = try await trips.aggregate(.count, .sum(\.budget))`.
    public func aggregate<each R>(_ aggregates: repeat Aggregate<Model, each R>, where filter: Filter<Model>? = nil)
        async throws -> (repeat each R)
    {
        let functions = try AggregateRowReader.functions(repeat each aggregates)
        let rows = try await aggregateRows(functions, groupedBy: nil, where: filter)
        guard let row = rows.first, rows.count == 1 else {
            throw StrataError(
                .storageFailure, entity: Model.entityName, "an aggregate without grouping answered \(rows.count) rows")
        }
        let reader = AggregateRowReader(functions: functions)
        return (repeat try reader.value(each aggregates, in: row))
    }

    /// Aggregates per group: one tuple per distinct value of `key` (an attribute or a to-one)
    /// among the models a filter matches, in that value's order, nulls first; a group no model
    /// matches does not appear.
    ///
    /// ```swift
    /// for (city, stops, nights) in try await stops.aggregate(.count, .sum(\.nights), groupedBy: \.city) { … }
    /// ```
    public func aggregate<Key: AttributeConvertible, each R>(
        _ aggregates: repeat Aggregate<Model, each R>, groupedBy key: KeyPath<Model, Key>,
        where filter: Filter<Model>? = nil
    ) async throws -> [(Key, repeat each R)] {
        let functions = try AggregateRowReader.functions(repeat each aggregates)
        let property = try Model.entity.propertyName(key).get()
        let reader = AggregateRowReader(functions: functions)
        return try await aggregateRows(functions, groupedBy: property, where: filter).map { row in
            guard let group = Key.fromAttributeValue(row.group) else {
                throw StrataError(
                    .typeMismatch, entity: Model.entityName, property: property,
                    "a group's \(property) is \(row.group), which \(Key.self) cannot hold")
            }
            return (group, repeat try reader.value(each aggregates, in: row))
        }
    }

    /// The sum of an attribute over the models a filter matches (`0` when none holds a value).
    public func sum<V: SummableAttribute>(_ keyPath: KeyPath<Model, V>, where filter: Filter<Model>? = nil) async throws
        -> V.Unwrapped
    {
        try await aggregate(.sum(keyPath), where: filter)
    }

    /// The average of an attribute over the models a filter matches, or `nil` when none holds a value.
    public func average<V: SummableAttribute>(_ keyPath: KeyPath<Model, V>, where filter: Filter<Model>? = nil)
        async throws -> Double?
    {
        try await aggregate(.average(keyPath), where: filter)
    }

    /// The least value of an attribute among the models a filter matches, or `nil`.
    public func min<V: OrderedAttribute>(_ keyPath: KeyPath<Model, V>, where filter: Filter<Model>? = nil) async throws
        -> V.Unwrapped?
    {
        try await aggregate(.min(keyPath), where: filter)
    }

    /// The greatest value of an attribute among the models a filter matches, or `nil`.
    public func max<V: OrderedAttribute>(_ keyPath: KeyPath<Model, V>, where filter: Filter<Model>? = nil) async throws
        -> V.Unwrapped?
    {
        try await aggregate(.max(keyPath), where: filter)
    }
}

/// Finds each typed aggregate's value in a row by the position of its function.
struct AggregateRowReader {
    let functions: [AggregateFunction]

    /// The untyped functions of typed aggregates, or the error a key path of theirs produced.
    static func functions<Model, each R>(_ aggregates: repeat Aggregate<Model, each R>) throws -> [AggregateFunction] {
        var functions: [AggregateFunction] = []
        for aggregate in repeat each aggregates {
            if let failure = aggregate.failure { throw failure }
            functions.append(aggregate.function)
        }
        return functions
    }

    func value<Model, R>(_ aggregate: Aggregate<Model, R>, in row: AggregateRow) throws -> R {
        guard let index = functions.firstIndex(of: aggregate.function), index < row.values.count else {
            throw StrataError(
                .storageFailure, entity: Model.entityName, "the backend answered no value for \(aggregate.function)")
        }
        return try aggregate.read(row.values[index])
    }
}
