/// Aggregates of a to-many from the owner's side: "tasks per project", owners with none included.
extension ModelReading {
    /// For every owner a filter matches (every owner when nil), in ID order, the aggregates over its
    /// members of a to-many — an owner with none included, with a count of 0, a sum of 0, and nil
    /// minimum, maximum and average:
    ///
    /// ```swift
    /// for (trip, stops, nights) in try await trips.aggregate(.count, .sum(\.nights), over: Trip.stops) { … }
    /// ```
    ///
    /// Read from one state (a repository's: one read, the members of every owner fetched together);
    /// evaluated by the engine over each owner's members.
    public func aggregate<D: PersistentModel, each R>(
        _ aggregates: repeat Aggregate<D, each R>, over relationship: ToMany<Model, D>,
        where filter: Filter<Model>? = nil
    ) async throws -> [(Model.ID, repeat each R)] {
        let functions = try AggregateRowReader.functions(repeat each aggregates)
        let reader = AggregateRowReader(functions: functions)
        return try await relatedAggregateRows(functions, over: relationship, where: filter).map { owner, row in
            (owner, repeat try reader.value(each aggregates, in: row))
        }
    }

    /// How many members of a to-many each owner a filter matches has (every owner when nil; none: 0).
    public func countRelated<D: PersistentModel>(_ relationship: ToMany<Model, D>, where filter: Filter<Model>? = nil)
        async throws -> [Model.ID: Int]
    {
        let rows = try await aggregate(.count, over: relationship, where: filter)
        return Dictionary(rows.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
    }
}

/// The untyped rows behind ``ModelReading/aggregate(_:over:where:)``.
extension ModelReading {
    /// The default, for test doubles and contexts: the owners, then each owner's members, with the
    /// engine's aggregates over them. A store's repository reads everything in one read.
    public func relatedAggregateRows<D: PersistentModel>(
        _ functions: [AggregateFunction], over relationship: ToMany<Model, D>, where filter: Filter<Model>?
    ) async throws -> [(Model.ID, AggregateRow)] {
        let (plan, entity) = try RelatedAggregates.plan(D.self, functions)
        var rows: [(Model.ID, AggregateRow)] = []
        for owner in try await fetch(Query(filter)) {
            let members = try await related(relationship, of: owner.id).map { try $0.record() }
            rows.append((owner.id, try RelatedAggregates.row(plan, members, entity)))
        }
        return rows
    }
}

extension Repository {
    /// ``ModelReading/aggregate(_:over:where:)`` from one committed state: the owners, then the
    /// members of all of them in one query (for a to-many stored through its inverse to-one).
    public func relatedAggregateRows<D: PersistentModel>(
        _ functions: [AggregateFunction], over relationship: ToMany<Model, D>, where filter: Filter<Model>?
    ) async throws -> [(Model.ID, AggregateRow)] {
        let (plan, entity) = try RelatedAggregates.plan(D.self, functions)
        let query = Query<Model>(filter)
        return try await store.read { reader in
            let owners = try reader.fetch(query).map(\.id)
            let members = try reader.relatedRecords(Model.entityName, relationship.name, owners: owners.map(\.recordID))
            return try owners.map { ($0, try RelatedAggregates.row(plan, members[$0.recordID] ?? [], entity)) }
        }
    }
}

/// One aggregate row over one owner's members.
enum RelatedAggregates {
    static func plan<D: PersistentModel>(_ type: D.Type, _ functions: [AggregateFunction]) throws -> (
        AggregatePlan, EntityDescription
    ) {
        let plan = try AggregatePlan(D.self, functions, groupedBy: nil, where: nil)
        let entity = try D.entityDescription()
        try AggregateEvaluator.validate(plan, entity)
        return (plan, entity)
    }

    static func row(_ plan: AggregatePlan, _ members: [Record], _ entity: EntityDescription) throws -> AggregateRow {
        guard let row = try AggregateEvaluator.evaluate(plan, members, entity).first else {
            throw StrataError(.storageFailure, entity: entity.name, "an aggregate without grouping answered no row")
        }
        return row
    }
}
