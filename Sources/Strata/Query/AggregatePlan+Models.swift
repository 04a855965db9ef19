extension AggregatePlan {
    /// The plan of a typed filter, or the error its key paths produced.
    init<Model: PersistentModel>(
        _ type: Model.Type, _ functions: [AggregateFunction], groupedBy property: String?, where filter: Filter<Model>?
    ) throws {
        if let failure = filter?.failure { throw failure }
        self.init(entity: Model.entityName, predicate: filter?.expression, groupBy: property, functions: functions)
    }
}
