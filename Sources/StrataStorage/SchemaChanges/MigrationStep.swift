/// One lightweight change a migration makes, inferred from the difference between the shape a
/// store holds and the app's schema (`LightweightMigration.steps(from:to:)`).
public enum MigrationStep: Sendable, Hashable, CustomStringConvertible {
    /// A new entity, created empty.
    case addEntity(String)
    /// An entity no longer declared: its records go.
    case removeEntity(String)
    /// An entity renamed (its records and links move).
    case renameEntity(from: String, to: String)
    /// Every existing record gets `default` (nil for an optional attribute with none; a required
    /// one with none fails listing the existing records, so it suits an empty entity).
    case addAttribute(entity: String, attribute: String, default: Value?)
    /// An attribute no longer declared: its values go.
    case removeAttribute(entity: String, attribute: String)
    /// An attribute renamed: its values move.
    case renameAttribute(entity: String, from: String, to: String)
    /// Records holding nil get `default`; without one, the migration fails listing the records
    /// holding nil (none: it succeeds).
    case makeRequired(entity: String, attribute: String, default: Value?)
    /// A required attribute made optional.
    case makeOptional(entity: String, attribute: String)
    /// An index added on one attribute.
    case addAttributeIndex(entity: String, attribute: String)
    /// An index removed from one attribute.
    case removeAttributeIndex(entity: String, attribute: String)
    /// A compound index added.
    case addIndex(entity: String, properties: [String])
    /// A compound index removed.
    case removeIndex(entity: String, properties: [String])
    /// Checked for duplicates first: a migration never removes a record to satisfy it.
    case addUniqueConstraint(entity: String, properties: [String])
    /// A unique constraint removed.
    case removeUniqueConstraint(entity: String, properties: [String])
    /// A new relationship (to-ones start nil, to-manys empty).
    case addRelationship(entity: String, relationship: String)
    /// A relationship no longer declared: its references or links go.
    case removeRelationship(entity: String, relationship: String)
    /// A relationship renamed: its references or links move.
    case renameRelationship(entity: String, from: String, to: String)
    /// Unordered ↔ ordered: the members stay, in their current order.
    case changeOrdering(entity: String, relationship: String, ordered: Bool)
    /// To-one ↔ to-many: the members are read from whichever side kept them (a record with more
    /// than one member cannot become a to-one: the migration fails naming it).
    case changeCardinality(entity: String, relationship: String, cardinality: RelationshipDescription.Cardinality)
    /// The stored properties are declared in another order: records are laid out again.
    case reorderProperties(entity: String)
    /// The inverse's cardinality changed, so the other side keeps the members now.
    case changeStorage(entity: String, relationship: String)
    /// Every stored value converted to the attribute's new type (a lossless rule, or the stage's
    /// conversion when `explicit`); a value that does not convert fails the migration naming it.
    case changeType(entity: String, attribute: String, from: AttributeType, to: AttributeType, explicit: Bool)
    /// A full-text index added (or changed: removed, then added): built from every record.
    case addSearchIndex(entity: String, index: String)
    /// A full-text index removed, with everything it kept.
    case removeSearchIndex(entity: String, index: String)

    public var description: String {
        switch self {
        case .addEntity(let entity): "add entity \(entity)"
        case .removeEntity(let entity): "remove entity \(entity) and its records"
        case .renameEntity(let from, let to): "rename entity \(from) to \(to)"
        case .addAttribute(let entity, let attribute, let value):
            "add \(entity).\(attribute)\(value.map { ", set to \($0) in every existing record" } ?? "")"
        case .removeAttribute(let entity, let attribute): "remove \(entity).\(attribute)"
        case .renameAttribute(let entity, let from, let to): "rename \(entity).\(from) to \(to)"
        case .makeRequired(let entity, let attribute, let value):
            "make \(entity).\(attribute) required\(value.map { " (nil becomes \($0))" } ?? " (no record may hold nil)")"
        case .makeOptional(let entity, let attribute): "make \(entity).\(attribute) optional"
        case .addAttributeIndex(let entity, let attribute): "index \(entity).\(attribute)"
        case .removeAttributeIndex(let entity, let attribute): "drop the index on \(entity).\(attribute)"
        case .addIndex(let entity, let properties): "index \(entity)(\(properties.joined(separator: ", ")))"
        case .removeIndex(let entity, let properties): "drop the index \(entity)(\(properties.joined(separator: ", ")))"
        case .addUniqueConstraint(let entity, let properties):
            "make \(entity)(\(properties.joined(separator: ", "))) unique"
        case .removeUniqueConstraint(let entity, let properties):
            "drop the unique constraint \(entity)(\(properties.joined(separator: ", ")))"
        case .addRelationship(let entity, let relationship): "add relationship \(entity).\(relationship)"
        case .removeRelationship(let entity, let relationship): "remove relationship \(entity).\(relationship)"
        case .renameRelationship(let entity, let from, let to): "rename relationship \(entity).\(from) to \(to)"
        case .changeOrdering(let entity, let relationship, let ordered):
            "make \(entity).\(relationship) \(ordered ? "ordered" : "unordered")"
        case .changeCardinality(let entity, let relationship, let cardinality):
            "make \(entity).\(relationship) \(cardinality.rawValue)"
        case .reorderProperties(let entity): "lay out \(entity)'s records in the new order of its properties"
        case .changeStorage(let entity, let relationship):
            "move \(entity).\(relationship)'s members to the side that keeps them now"
        case .changeType(let entity, let attribute, let from, let to, let explicit):
            "convert \(entity).\(attribute) from \(from.rawValue) to \(to.rawValue)"
                + (explicit ? " with the stage's conversion" : " (lossless)")
        case .addSearchIndex(let entity, let index): "build the full-text index \(index) of \(entity) from its records"
        case .removeSearchIndex(let entity, let index): "drop the full-text index \(index) of \(entity)"
        }
    }
}
