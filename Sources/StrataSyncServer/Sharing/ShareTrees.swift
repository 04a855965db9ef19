import Strata
import StrataSync

/// Where shares reach: for each entity, the routes from a shareable entity's records to it (the
/// shared record itself, and the records of the paths its rule includes).
struct ShareTrees: Sendable {
    /// One way a share reaches an entity: from `root`, through relationships whose inverses
    /// lead back (`inverses`, from the root outward).
    struct Route: Sendable {
        let root: String
        let inverses: [RelationshipDescription]
    }

    private(set) var routes: [String: [Route]] = [:]

    /// The routes of `access`'s shareable rules under `schema`; a path naming no relationship,
    /// or one without an inverse, is `StrataError.Code.invalidQuery`.
    init(_ access: SyncAccess, schema: Schema) throws {
        for (root, rule) in access.shareables.sorted(by: { $0.key < $1.key }) {
            guard schema.entity(root) != nil else { continue }
            routes[root, default: []].append(Route(root: root, inverses: []))
            for path in rule.including {
                var inverses: [RelationshipDescription] = []
                for (relationship, inverse) in try schema.inversePath(path, from: root, subject: "shareable \(root)") {
                    inverses.append(inverse)
                    routes[relationship.destination, default: []].append(Route(root: root, inverses: inverses))
                }
            }
        }
    }

    /// The records of `entity` that shares of `roots` (shared records' IDs by entity) reach, or
    /// `nil` when they reach none.
    func filter(for entity: String, roots: [String: [RecordID]]) -> FilterExpression? {
        var parts: [FilterExpression] = []
        for route in routes[entity] ?? [] {
            guard let ids = roots[route.root], !ids.isEmpty else { continue }
            var filter = FilterExpression.inList("id", ids.map(\.value), [])
            for inverse in route.inverses { filter = Self.follow(filter, back: inverse) }
            parts.append(filter)
        }
        return parts.isEmpty ? nil : parts.count == 1 ? parts[0] : .or(parts)
    }

    /// The records whose `inverse` leads to a record matching `filter`; a to-one pointing at
    /// listed IDs is compared directly (answered from the reference's index).
    private static func follow(_ filter: FilterExpression, back inverse: RelationshipDescription) -> FilterExpression {
        guard inverse.isToOne else { return .anyRelated(relationship: inverse.name, filter) }
        if case .inList("id", let ids, let options) = filter, inverse.storage == .reference {
            return .inList(inverse.name, ids, options)
        }
        return .relatedOne(relationship: inverse.name, filter)
    }
}

extension SyncAccess {
    /// Checks the shareable rules against `schema`: each is of an entity it holds, and each path
    /// names relationships with inverses (`StrataError.Code.invalidQuery` otherwise). A server
    /// with rules that fail this check refuses every request that reads shares.
    public func checkSharing(against schema: Schema) throws {
        for entity in shareables.keys.sorted() where schema.entity(entity) == nil {
            throw StrataError(.invalidQuery, entity: entity, "shareable \(entity) is not an entity of the store")
        }
        _ = try ShareTrees(self, schema: schema)
    }
}
