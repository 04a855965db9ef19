import Foundation

/// A schema as the app declares it, in a JSON file tools can read without the app's Swift types:
/// everything ``SchemaDescription`` keeps (the stored shape) plus the behaviour the engine
/// enforces — delete rules, required to-ones, to-many bounds, defaults, allowed values,
/// declarative validation rules — and the renames a migration follows.
///
/// An app exports one for `strata migrate` (`try SchemaFile(schema).write(to: path)`); a store
/// records the one of the last app that opened it (`Store.declaredSchema()`), so `strata verify`
/// judges dangling references by the app's delete rules and `strata schema export` can print it.
///
/// Closures cannot travel: a custom validation rule or a record check is kept by name only
/// (``Attribute/customRules``, ``Entity/recordChecks``) and is not enforced by a schema read back
/// from a file.
public struct SchemaFile: Sendable, Hashable {
    /// The file's own format.
    public var format = 1
    /// The app's version name for the schema (``Schema/version``), if any.
    public var version: String?
    /// Entities in declaration order; attributes and relationships too (records are laid out in it).
    public var entities: [Entity]

    /// One entity of the file.
    public struct Entity: Sendable, Hashable {
        /// The entity's name.
        public var name: String
        /// The kind of its IDs.
        public var idKind: RecordID.Kind
        /// Its attributes.
        public var attributes: [Attribute]
        /// Its relationships.
        public var relationships: [Relationship]
        /// Its compound indexes.
        public var indexes: [[String]]
        /// Its unique constraints.
        public var uniqueConstraints: [[String]]
        /// The names of the entity's record checks (closures: not enforced from a file).
        public var recordChecks: [String]
        /// Its name in the previous schema version.
        public var renamedFrom: String?
        /// Its full-text indexes.
        public var searchIndexes: [SearchIndexDescription]

        /// An entity as the file describes it.
        public init(
            name: String, idKind: RecordID.Kind = .uuid, attributes: [Attribute] = [],
            relationships: [Relationship] = [],
            indexes: [[String]] = [], uniqueConstraints: [[String]] = [], recordChecks: [String] = [],
            renamedFrom: String? = nil, searchIndexes: [SearchIndexDescription] = []
        ) {
            self.searchIndexes = searchIndexes
            self.name = name
            self.idKind = idKind
            self.attributes = attributes
            self.relationships = relationships
            self.indexes = indexes
            self.uniqueConstraints = uniqueConstraints
            self.recordChecks = recordChecks
            self.renamedFrom = renamedFrom
        }
    }

    /// One attribute of the file.
    public struct Attribute: Sendable, Hashable {
        /// The attribute's name.
        public var name: String
        /// The stored type.
        public var type: AttributeType
        /// Whether it may hold null.
        public var isOptional: Bool
        /// Whether it is indexed.
        public var isIndexed: Bool
        /// The value filled in when none is given.
        public var defaultValue: Value?
        /// The only values allowed (an enum's raw values).
        public var allowedValues: [Value]?
        /// Range, length and pattern rules.
        public var rules: [Rule]
        /// The names of custom (closure) rules: not enforced from a file.
        public var customRules: [String]
        /// Its name in the previous schema version.
        public var renamedFrom: String?
        /// For arrays, sets and dictionaries: the element type.
        public var element: AttributeType?
        /// For a derived attribute: how the engine computes it (`count(stops)`, `folded(name)`,
        /// `function(label)`; see ``Derivation``).
        public var derived: String?

        /// An attribute as the file describes it.
        public init(
            name: String, type: AttributeType, isOptional: Bool = false, isIndexed: Bool = false,
            defaultValue: Value? = nil,
            allowedValues: [Value]? = nil, rules: [Rule] = [], customRules: [String] = [], renamedFrom: String? = nil,
            element: AttributeType? = nil
        ) {
            self.element = element
            self.name = name
            self.type = type
            self.isOptional = isOptional
            self.isIndexed = isIndexed
            self.defaultValue = defaultValue
            self.allowedValues = allowedValues
            self.rules = rules
            self.customRules = customRules
            self.renamedFrom = renamedFrom
        }
    }

    /// A declarative validation rule.
    public enum Rule: Sendable, Hashable {
        /// A value within bounds, inclusive.
        case range(min: Value?, max: Value?)
        /// A length within bounds, inclusive.
        case length(min: Int?, max: Int?)
        /// A regular expression the whole value matches, and the name a client is told it must
        /// match (`"slug"`: "must match the slug pattern"), if it has one.
        case pattern(String, name: String? = nil)
    }

    /// One relationship of the file.
    public struct Relationship: Sendable, Hashable {
        /// The relationship's name.
        public var name: String
        /// The destination entity.
        public var destination: String
        /// The inverse relationship's name.
        public var inverse: String?
        /// To-one or to-many.
        public var cardinality: RelationshipDescription.Cardinality
        /// Whether the to-many keeps an order.
        public var isOrdered: Bool
        /// What deleting the owner does to the destinations.
        public var deleteRule: DeleteRule
        /// Whether a to-one must be set.
        public var isRequired: Bool
        /// At least this many destinations.
        public var minCount: Int?
        /// At most this many destinations.
        public var maxCount: Int?
        /// Its name in the previous schema version.
        public var renamedFrom: String?

        /// A relationship as the file describes it.
        public init(
            name: String, destination: String, inverse: String?, cardinality: RelationshipDescription.Cardinality,
            isOrdered: Bool = false,
            deleteRule: DeleteRule = .nullify, isRequired: Bool = false, minCount: Int? = nil, maxCount: Int? = nil,
            renamedFrom: String? = nil
        ) {
            self.name = name
            self.destination = destination
            self.inverse = inverse
            self.cardinality = cardinality
            self.isOrdered = isOrdered
            self.deleteRule = deleteRule
            self.isRequired = isRequired
            self.minCount = minCount
            self.maxCount = maxCount
            self.renamedFrom = renamedFrom
        }
    }

    /// The metadata key a store records the declaring app's file under.
    public static let metadataKey = MetadataKeys.schemaDeclaration

    /// The file of `schema`.
    public init(_ schema: Schema) {
        version = schema.version
        entities = schema.entities.map { entity in
            Entity(
                name: entity.name, idKind: entity.idKind,
                attributes: entity.attributes.map { attribute in
                    var rules: [Rule] = []
                    var custom: [String] = []
                    for rule in attribute.rules {
                        switch rule.kind {
                        case .range(let min, let max): rules.append(.range(min: min, max: max))
                        case .length(let min, let max): rules.append(.length(min: min, max: max))
                        case .pattern(let regex): rules.append(.pattern(regex, name: rule.name))
                        case .custom(let name, _): custom.append(name)
                        }
                    }
                    var described = Attribute(
                        name: attribute.name, type: attribute.type, isOptional: attribute.isOptional,
                        isIndexed: attribute.isIndexed,
                        defaultValue: attribute.defaultValue, allowedValues: attribute.allowedValues, rules: rules,
                        customRules: custom,
                        renamedFrom: attribute.renamedFrom, element: attribute.element)
                    described.derived = attribute.derivation?.description
                    return described
                },
                relationships: entity.relationships.map {
                    Relationship(
                        name: $0.name, destination: $0.destination, inverse: $0.inverse, cardinality: $0.cardinality,
                        isOrdered: $0.isOrdered, deleteRule: $0.deleteRule, isRequired: $0.isRequired,
                        minCount: $0.minCount, maxCount: $0.maxCount, renamedFrom: $0.renamedFrom)
                },
                indexes: entity.indexes, uniqueConstraints: entity.uniqueConstraints,
                recordChecks: entity.recordChecks.map(\.name), renamedFrom: entity.renamedFrom,
                searchIndexes: entity.searchIndexes)
        }
    }

    /// The schema the file declares: checked as any schema is (``StrataError/Code/invalidSchema``
    /// naming the entity and property). A store does not record it when opened with it — only
    /// an app's own schema is recorded.
    public func schema() throws -> Schema {
        var schema = try Schema(
            entities: entities.map { entity in
                EntityDescription(
                    name: entity.name, idKind: entity.idKind,
                    attributes: entity.attributes.map { attribute in
                        var described = AttributeDescription(
                            name: attribute.name, type: attribute.type, isOptional: attribute.isOptional,
                            defaultValue: attribute.defaultValue, isIndexed: attribute.isIndexed,
                            allowedValues: attribute.allowedValues,
                            rules: attribute.rules.map { rule in
                                switch rule {
                                case .range(let min, let max): ValidationRule(.range(min: min, max: max))
                                case .length(let min, let max): ValidationRule(.length(min: min, max: max))
                                case .pattern(let regex, let name): ValidationRule(.pattern(regex), name: name)
                                }
                            },
                            renamedFrom: attribute.renamedFrom, element: attribute.element)
                        described.derivation = attribute.derived.flatMap(Derivation.init(recorded:))
                        return described
                    },
                    relationships: entity.relationships.map {
                        var relationship = RelationshipDescription(
                            name: $0.name, destination: $0.destination, inverse: $0.inverse,
                            cardinality: $0.cardinality,
                            isOrdered: $0.isOrdered, deleteRule: $0.deleteRule, isRequired: $0.isRequired,
                            minCount: $0.minCount, maxCount: $0.maxCount)
                        relationship.renamedFrom = $0.renamedFrom
                        return relationship
                    },
                    indexes: entity.indexes, uniqueConstraints: entity.uniqueConstraints,
                    renamedFrom: entity.renamedFrom, searchIndexes: entity.searchIndexes)
            }
        ).versioned(version)
        schema.recordsDeclaration = false
        return schema
    }

    /// Writes the file (pretty JSON with sorted keys) to `path`.
    public func write(to path: String) throws {
        do {
            try Data(encoded(pretty: true)).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw StrataError(.storageFailure, underlying: error, "cannot write the schema file \(path)")
        }
    }

    /// Reads the file at `path` (see `decode(_:path:)`).
    public static func read(from path: String) throws -> SchemaFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StrataError(.storageFailure, "cannot read the schema file \(path)")
        }
        return try decode(Array(data), path: path)
    }
}

extension SchemaFile {
    /// Whether this file declares the shape (and version) a store holding `stored` keeps — so a
    /// store may be opened with it.
    public func declares(_ stored: SchemaDescription) -> Bool {
        guard let schema = try? schema() else { return false }
        return stored.isOpenable(as: SchemaDescription(schema))
    }
}

extension Schema {
    /// This schema as a ``SchemaFile``.
    public var file: SchemaFile { SchemaFile(self) }
}
