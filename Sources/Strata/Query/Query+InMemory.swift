/// Queries and filters evaluated over models held in memory, exactly as a store evaluates them —
/// what a test double needs to answer a service's lookups correctly.
///
/// ```swift
/// let tags = [Tag(id: "a", label: "Food"), Tag(id: "b", label: "Beach")]
/// let found = try Query<Tag>.where(\.label == "Food").apply(to: tags, schema: schema)   // [a]
/// ```
///
/// A filter that follows a relationship needs the related records, which models held apart do
/// not have: it is `StrataError.Code.invalidQuery` here; a `memory:` store answers it.
extension Query {
    /// The models among `models` this query matches, in its sort order (ID ascending last), paged
    /// by its offset and limit. `schema` is the app's (it must hold `Model`'s entity).
    public func apply(to models: [Model], schema: Schema) throws -> [Model] {
        let transaction = ModelsTransaction(
            schema: schema, entity: Model.entityName, records: try models.map { try $0.record() })
        let records = try QueryExecutor(capabilities: .none).fetch(try plan(), in: transaction)
        return try records.map(Model.init(record:))
    }
}

extension Filter {
    /// Whether `model` satisfies this filter, as a store evaluates it (see `Query.apply(to:schema:)`).
    public func matches(_ model: Model, schema: Schema) throws -> Bool {
        try !Query(self).apply(to: [model], schema: schema).isEmpty
    }
}

/// One entity's records as a read transaction; anything a relationship would read is refused.
private struct ModelsTransaction: StorageReadTransaction {
    let schema: Schema
    let entity: String
    let records: [Record]

    private func refuse(_ other: String) -> StrataError {
        StrataError(
            .invalidQuery, entity: entity,
            "a filter that follows a relationship (to \(other)) needs the related records: use a memory: store")
    }

    func record(_ entity: String, id: RecordID) throws -> Record? {
        guard entity == self.entity else { throw refuse(entity) }
        return records.first { $0.id == id }
    }

    func fetch(_ plan: FetchPlan) throws -> [Record] {
        guard plan.entity == entity else { throw refuse(plan.entity) }
        return records
    }

    func count(_ plan: FetchPlan) throws -> Int { try fetch(plan).count }

    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        throw refuse(entity)
    }

    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        throw refuse(relationship)
    }

    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        throw refuse(relationship)
    }

    func metadata(_ key: String) throws -> [UInt8]? { nil }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] { [] }
}
