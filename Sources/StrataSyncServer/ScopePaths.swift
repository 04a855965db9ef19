import Strata

/// Where read filters reach through other records: for each entity a filter reads through a to-one
/// relationship (a stop's trip, a trip's traveller), the entities and relationships that read it.
/// A change of such a record can move its referrers into or out of a reader's scope without
/// changing them, so a pull looks at them too
/// (``SyncServer/dependents(of:first:filter:paths:sent:cursor:snapshots:cursorFilter:in:)``).
struct ScopePaths: Sendable {
    struct Reader: Sendable, Hashable {
        var entity: String
        var relationship: String
    }

    /// For each entity read through, who reads it.
    private(set) var readers: [String: [Reader]] = [:]

    /// The paths of `filters` (each entity's filter), resolved against `schema`.
    init(_ filters: [String: FilterExpression], schema: Schema) {
        for (entity, filter) in filters.sorted(by: { $0.key < $1.key }) { walk(filter, of: entity, schema, depth: 0) }
    }

    /// Every entity some filter reads through.
    var readThrough: Set<String> { Set(readers.keys) }

    private mutating func walk(_ filter: FilterExpression, of entity: String, _ schema: Schema, depth: Int) {
        // Filters the server builds are shallow; a deep one is not walked past this.
        guard depth < 32 else { return }
        switch filter {
        case .and(let parts), .or(let parts):
            for part in parts { walk(part, of: entity, schema, depth: depth + 1) }
        case .not(let inner):
            walk(inner, of: entity, schema, depth: depth + 1)
        case .relatedOne(let name, let inner):
            guard let destination = schema.entity(entity)?.relationship(name)?.destination else { return }
            let reader = Reader(entity: entity, relationship: name)
            if readers[destination]?.contains(reader) != true { readers[destination, default: []].append(reader) }
            walk(inner, of: destination, schema, depth: depth + 1)
        default:
            return
        }
    }
}
