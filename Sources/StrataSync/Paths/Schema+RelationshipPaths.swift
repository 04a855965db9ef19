import Strata

extension Schema {
    /// The steps of a dotted relationship path from `entity` (`"trips.stops"`): each relationship
    /// with its inverse, which subscriptions and shares follow back to the record they start from.
    /// A step naming no relationship, or one without an inverse, is `StrataError.Code.invalidQuery`
    /// naming `subject` (what declared the path).
    package func inversePath(_ path: String, from entity: String, subject: String) throws -> [(
        relationship: RelationshipDescription, inverse: RelationshipDescription
    )] {
        var steps: [(RelationshipDescription, RelationshipDescription)] = []
        var current = entity
        for step in path.split(separator: ".").map(String.init) {
            guard let relationship = self.entity(current)?.relationship(step), let inverse = inverse(of: relationship)
            else {
                throw StrataError(
                    .invalidQuery, entity: current,
                    "\(subject): \(current).\(step) is not a relationship with an inverse")
            }
            steps.append((relationship, inverse))
            current = relationship.destination
        }
        return steps
    }
}
