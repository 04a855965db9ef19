/// Runs a `FetchPlan` against a transaction: checks it against the schema, sends the backend
/// the part its capabilities cover, and evaluates the rest (filter, sort, page) itself.
package struct QueryExecutor {
    let capabilities: FetchCapabilities

    package func fetch(_ input: FetchPlan, in transaction: any StorageReadTransaction) throws -> [Record] {
        try fetchPage(KeysetPlan(plan: input, relevance: nil), in: transaction).records
    }

    /// A keyset page: the plan's records, starting after the relevance position when it has one,
    /// and the last record's relevance score when the plan ranks by relevance.
    package func fetchPage(_ input: KeysetPlan, in transaction: any StorageReadTransaction) throws -> KeysetRecords {
        let plan = try prepare(input.plan, schema: transaction.schema)
        if plan.predicate?.matchesNothing == true { return KeysetRecords(records: [], lastScore: nil) }
        if Self.searches(plan) { return try fetchSearching(plan, after: input.relevance, in: transaction) }
        return KeysetRecords(records: try fetchPlain(plan, in: transaction), lastScore: nil)
    }

    private func fetchPlain(_ plan: FetchPlan, in transaction: any StorageReadTransaction) throws -> [Record] {
        let (native, residual) = split(plan.predicate)
        let sortNative = plan.sort.isEmpty || (capabilities.sorting && plan.sort.allSatisfy { $0.position == nil })
        let pageNative = (plan.limit == nil && plan.offset == 0) || (capabilities.paging && capabilities.sorting)
        if residual == nil, sortNative, pageNative {
            if plan.limit == 0 { return [] }
            return try transaction.fetch(plan)
        }
        let candidatePlan = FetchPlan(entity: plan.entity, predicate: native)
        var records = try transaction.fetch(candidatePlan)
        if let residual {
            let evaluator = PredicateEvaluator(transaction)
            records = try records.filter { try evaluator.matches($0, residual) }
        }
        return PredicateEvaluator.sortAndPage(records, plan, positions: try positions(plan.sort, in: transaction))
    }

    /// Each position key's list, member ID to index, read from its owner (`notFound` when the
    /// owner does not exist).
    func positions(_ keys: [SortKey], in transaction: any StorageReadTransaction) throws
        -> [ListPosition: [RecordID: Int]]
    {
        var result: [ListPosition: [RecordID: Int]] = [:]
        for list in keys.compactMap(\.position) where result[list] == nil {
            let entity = try transaction.schema.requireEntity(list.entity)
            guard let relationship = entity.relationship(list.relationship),
                let owner = try transaction.record(list.entity, id: list.owner)
            else {
                throw StrataError(.notFound, entity: list.entity, recordID: list.owner, "the owner does not exist")
            }
            let members = try transaction.relatedIDs(of: owner, relationship)
            result[list] = Dictionary(members.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
        return result
    }

    package func count(_ input: FetchPlan, in transaction: any StorageReadTransaction) throws -> Int {
        let plan = try prepare(input, schema: transaction.schema)
        if plan.predicate?.matchesNothing == true { return 0 }
        let (_, residual) = split(plan.predicate)
        let total: Int
        if residual == nil, capabilities.counting {
            total = try transaction.count(FetchPlan(entity: plan.entity, predicate: plan.predicate))
        } else {
            total = try fetch(FetchPlan(entity: plan.entity, predicate: plan.predicate), in: transaction).count
        }
        let afterOffset = max(0, total - max(0, plan.offset))
        return plan.limit.map { min(max(0, $0), afterOffset) } ?? afterOffset
    }

    /// An aggregate: checked against the schema, answered by the backend when it declares
    /// aggregates and evaluates the whole predicate, by the engine over the matching records
    /// otherwise.
    func aggregate(_ input: AggregatePlan, in transaction: any StorageReadTransaction) throws -> [AggregateRow] {
        let fetch = try prepare(FetchPlan(entity: input.entity, predicate: input.predicate), schema: transaction.schema)
        let entity = try transaction.schema.requireEntity(input.entity)
        try AggregateEvaluator.validate(input, entity)
        var plan = input
        plan.predicate = fetch.predicate
        if plan.predicate?.matchesNothing == true { return try AggregateEvaluator.evaluate(plan, [], entity) }
        // Sums and averages of decimals are the engine's on every backend: exact, with overflow an
        // error, and the same digits everywhere (SQL's SUM would add a decimal's sortable text).
        let exact = plan.functions.contains { function in
            switch function {
            case .sum(let name), .average(let name): entity.attribute(name)?.type == .decimal
            default: false
            }
        }
        if capabilities.aggregating, !exact, split(plan.predicate).residual == nil {
            return try transaction.aggregate(plan)
        }
        return try AggregateEvaluator.evaluate(plan, try self.fetch(fetch, in: transaction), entity)
    }

    /// Records whose `property` equals one of `values`, asked for in chunks so no backend is sent an
    /// unbounded list (SQLite caps the bound variables of one statement). Each chunk's records come
    /// back in ID order.
    func fetch(
        _ entity: String, where property: String, in values: [Value], from transaction: any StorageReadTransaction
    ) throws -> [Record] {
        // A backend that cannot evaluate `IN` would be scanned once per chunk; every backend can
        // look a record up by its key instead.
        if property == "id", split(.inList(property, [], [])).residual != nil {
            let ids = Set(values.compactMap(RecordID.init)).sorted()
            return try ids.compactMap { try transaction.record(entity, id: $0) }
        }
        var records: [Record] = []
        var start = 0
        while start < values.count {
            let chunk = Array(values[start..<min(values.count, start + 500)])
            records += try fetch(FetchPlan(entity: entity, predicate: .inList(property, chunk, [])), in: transaction)
            start += chunk.count
        }
        return records
    }

    /// The part of the predicate the backend evaluates and the part the engine evaluates. A
    /// backend that declares no predicate feature is never sent a predicate (the plans reaching
    /// here are folded: no bare constants).
    func split(_ predicate: FilterExpression?) -> (native: FilterExpression?, residual: FilterExpression?) {
        guard let predicate else { return (nil, nil) }
        if capabilities.predicateFeatures.isEmpty { return (nil, predicate) }
        // A search is the engine's: never sent, whatever the backend declares.
        // So is a part nested deeper than the backend's translator takes.
        func isNative(_ part: FilterExpression) -> Bool {
            !part.containsSearch && part.requiredFeatures.isSubset(of: capabilities.predicateFeatures)
                && capabilities.maximumNesting.map { part.nesting <= $0 } ?? true
        }
        if isNative(predicate) { return (predicate, nil) }
        guard case .and(let parts) = predicate, capabilities.predicateFeatures.contains(.logic) else {
            return (nil, predicate)
        }
        let native = parts.filter(isNative)
        let residual = parts.filter { !isNative($0) }
        return (native.isEmpty ? nil : .and(native), .and(residual))
    }

    /// The plan checked against the schema, with its constants under the value rules (text in
    /// NFC, so every backend compares the same bytes; NaN refused) and folded
    /// (`FilterExpression.foldingConstants()`): a predicate that is always true is dropped, one
    /// that is never true is answered by the callers above without asking the backend.
    func prepare(_ input: FetchPlan, schema: Schema) throws -> FetchPlan {
        var plan = input
        let entity = try schema.requireEntity(plan.entity)
        if let predicate = plan.predicate.map({ Self.rewritingCollections($0, entity) }) {
            try Self.validate(predicate, entity, schema)
            let folded = predicate.normalizingConstants().foldingConstants()
            plan.predicate = folded == .constant(true) ? nil : folded
        }
        for key in plan.sort {
            if let index = key.relevance {
                guard entity.searchIndex(index) != nil else {
                    throw StrataError(
                        .invalidQuery, entity: entity.name,
                        "cannot sort by relevance to \(index): \(entity.name) has no full-text index \(index)")
                }
            } else if let list = key.position {
                try Self.validate(list, sorting: entity, schema)
            } else if !entity.isQueryableProperty(key.property) {
                throw StrataError(
                    .unknownProperty, entity: entity.name, property: key.property,
                    "cannot sort by \(key.property): not an attribute or to-one of \(entity.name)")
            } else if let attribute = entity.attribute(key.property), !attribute.type.isScalar {
                throw StrataError(
                    .invalidQuery, entity: entity.name, property: key.property,
                    "cannot sort by \(key.property): a \(attribute.type.rawValue) has no order")
            }
        }
        if let limit = plan.limit, limit < 0 {
            throw StrataError(.invalidQuery, entity: entity.name, "limit \(limit) is negative")
        }
        if plan.offset < 0 {
            throw StrataError(.invalidQuery, entity: entity.name, "offset \(plan.offset) is negative")
        }
        return plan
    }

    /// A position key names an ordered to-many whose destination is the fetched entity.
    private static func validate(_ list: ListPosition, sorting entity: EntityDescription, _ schema: Schema) throws {
        let owner = try schema.requireEntity(list.entity)
        guard let relationship = owner.relationship(list.relationship) else {
            throw StrataError(
                .unknownProperty, entity: owner.name, property: list.relationship,
                "\(list.relationship) is not a relationship of \(owner.name)")
        }
        guard !relationship.isToOne, relationship.isOrdered, relationship.destination == entity.name else {
            throw StrataError(
                .invalidQuery, entity: owner.name, property: list.relationship,
                "cannot sort \(entity.name) by a position in \(owner.name).\(list.relationship): "
                    + "it is not an ordered to-many of \(entity.name)")
        }
        guard list.owner.kind == owner.idKind else {
            throw StrataError(
                .typeMismatch, entity: owner.name, recordID: list.owner,
                "\(owner.name) IDs are \(owner.idKind.rawValue), not \(list.owner.kind.rawValue)")
        }
    }

    private static func validate(_ expression: FilterExpression, _ entity: EntityDescription, _ schema: Schema) throws {
        func stored(_ property: String, _ constants: [Value] = [], text: Bool = false) throws {
            guard entity.isQueryableProperty(property) else {
                throw StrataError(
                    .unknownProperty, entity: entity.name, property: property,
                    "\(property) is not an attribute or to-one of \(entity.name)")
            }
            // A constant of another type would compare differently on different backends (SQLite
            // orders every number before every string), so the query is refused instead.
            let accepts: (Value) -> Bool
            let expected: String
            if let attribute = entity.attribute(property) {
                accepts = attribute.type.accepts
                expected = attribute.type.rawValue
            } else {
                let kind =
                    property == "id"
                    ? entity.idKind : schema.entity(entity.relationship(property)?.destination ?? "")?.idKind
                accepts = { RecordID($0)?.kind == kind }
                expected = "\(kind?.rawValue ?? "") ID"
            }
            if text, !accepts(.string("")) {
                throw StrataError(
                    .typeMismatch, entity: entity.name, property: property,
                    "text operators need a string property, \(property) is \(expected)")
            }
            for constant in constants where !constant.isNull {
                guard accepts(constant) else {
                    throw StrataError(
                        .typeMismatch, entity: entity.name, property: property,
                        "cannot compare \(expected) \(property) with \(constant)")
                }
                if let reason = ValueRules.violation(of: constant) {
                    throw StrataError(
                        .validationFailed, entity: entity.name, property: property,
                        "cannot compare \(property) with \(constant): \(reason)")
                }
            }
        }
        func relationship(_ name: String, toOne: Bool) throws -> EntityDescription {
            guard let relationship = entity.relationship(name) else {
                throw StrataError(
                    .unknownProperty, entity: entity.name, property: name,
                    "\(name) is not a relationship of \(entity.name)")
            }
            guard relationship.isToOne == toOne else {
                throw StrataError(
                    .invalidQuery, entity: entity.name, property: name,
                    "\(name) is a \(relationship.isToOne ? "to-one" : "to-many"); "
                        + "use \(relationship.isToOne ? "related" : "any/none")")
            }
            return try schema.requireEntity(relationship.destination)
        }
        if try validateCollections(expression, entity) { return }
        switch expression {
        case .constant, .elements, .documentPath: break
        case .search(let index, _):
            guard entity.searchIndex(index) != nil else {
                throw StrataError(.invalidQuery, entity: entity.name, "\(entity.name) has no full-text index \(index)")
            }
        case .compare(let property, _, let constant, _):
            try stored(property, [constant])
        case .inList(let property, let constants, _):
            try stored(property, constants)
        case .between(let property, let lower, let upper):
            try stored(property, [lower, upper])
        case .text(let property, _, _, _):
            try stored(property, text: true)
        case .isNil(let property):
            try stored(property)
        case .and(let parts), .or(let parts):
            for part in parts { try validate(part, entity, schema) }
        case .not(let inner):
            try validate(inner, entity, schema)
        case .relatedOne(let name, let inner):
            try validate(inner, try relationship(name, toOne: true), schema)
        case .anyRelated(let name, let inner), .noneRelated(let name, let inner):
            try validate(inner, try relationship(name, toOne: false), schema)
        }
    }
}
