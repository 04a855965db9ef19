import Foundation

/// A schema as the app declares it, in a JSON file tools can read without the app's Swift types:
/// everything ``SchemaDescription`` keeps (the stored shape) plus the behaviour the engine
/// enforces — delete rules, required to-ones, to-many bounds, defaults, allowed values,
/// declarative validation rules — and the renames a migration follows.
///
/// An app exports one for `strata migrate` (`try SchemaFile(schema).write(to: path)`); a store
/// records the one of the last app that opened it (``Store/declaredSchema()``), so `strata verify`
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

    public struct Entity: Sendable, Hashable {
        public var name: String
        public var idKind: RecordID.Kind
        public var attributes: [Attribute]
        public var relationships: [Relationship]
        public var indexes: [[String]]
        public var uniqueConstraints: [[String]]
        /// The names of the entity's record checks (closures: not enforced from a file).
        public var recordChecks: [String]
        public var renamedFrom: String?

        public init(
            name: String, idKind: RecordID.Kind = .uuid, attributes: [Attribute] = [], relationships: [Relationship] = [],
            indexes: [[String]] = [], uniqueConstraints: [[String]] = [], recordChecks: [String] = [], renamedFrom: String? = nil
        ) {
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

    public struct Attribute: Sendable, Hashable {
        public var name: String
        public var type: AttributeType
        public var isOptional: Bool
        public var isIndexed: Bool
        public var defaultValue: Value?
        public var allowedValues: [Value]?
        /// Range, length and pattern rules.
        public var rules: [Rule]
        /// The names of custom (closure) rules: not enforced from a file.
        public var customRules: [String]
        public var renamedFrom: String?

        public init(
            name: String, type: AttributeType, isOptional: Bool = false, isIndexed: Bool = false, defaultValue: Value? = nil,
            allowedValues: [Value]? = nil, rules: [Rule] = [], customRules: [String] = [], renamedFrom: String? = nil
        ) {
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
        case range(min: Value?, max: Value?)
        case length(min: Int?, max: Int?)
        case pattern(String)
    }

    public struct Relationship: Sendable, Hashable {
        public var name: String
        public var destination: String
        public var inverse: String?
        public var cardinality: RelationshipDescription.Cardinality
        public var isOrdered: Bool
        public var deleteRule: DeleteRule
        public var isRequired: Bool
        public var minCount: Int?
        public var maxCount: Int?
        public var renamedFrom: String?

        public init(
            name: String, destination: String, inverse: String?, cardinality: RelationshipDescription.Cardinality, isOrdered: Bool = false,
            deleteRule: DeleteRule = .nullify, isRequired: Bool = false, minCount: Int? = nil, maxCount: Int? = nil, renamedFrom: String? = nil
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
    public static let metadataKey = "strata.schema.declared"

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
                        case .pattern(let regex): rules.append(.pattern(regex))
                        case .custom(let name, _): custom.append(name)
                        }
                    }
                    return Attribute(
                        name: attribute.name, type: attribute.type, isOptional: attribute.isOptional, isIndexed: attribute.isIndexed,
                        defaultValue: attribute.defaultValue, allowedValues: attribute.allowedValues, rules: rules, customRules: custom,
                        renamedFrom: attribute.renamedFrom)
                },
                relationships: entity.relationships.map {
                    Relationship(
                        name: $0.name, destination: $0.destination, inverse: $0.inverse, cardinality: $0.cardinality,
                        isOrdered: $0.isOrdered, deleteRule: $0.deleteRule, isRequired: $0.isRequired,
                        minCount: $0.minCount, maxCount: $0.maxCount, renamedFrom: $0.renamedFrom)
                },
                indexes: entity.indexes, uniqueConstraints: entity.uniqueConstraints,
                recordChecks: entity.recordChecks.map(\.name), renamedFrom: entity.renamedFrom)
        }
    }

    /// The schema the file declares: checked as any schema is (``StrataError/Code/invalidSchema``
    /// naming the entity and property). A store does not record it when opened with it — only
    /// an app's own schema is recorded.
    public func schema() throws -> Schema {
        var schema = try Schema(entities: entities.map { entity in
            EntityDescription(
                name: entity.name, idKind: entity.idKind,
                attributes: entity.attributes.map { attribute in
                    AttributeDescription(
                        name: attribute.name, type: attribute.type, isOptional: attribute.isOptional,
                        defaultValue: attribute.defaultValue, isIndexed: attribute.isIndexed, allowedValues: attribute.allowedValues,
                        rules: attribute.rules.map { rule in
                            switch rule {
                            case .range(let min, let max): ValidationRule(.range(min: min, max: max))
                            case .length(let min, let max): ValidationRule(.length(min: min, max: max))
                            case .pattern(let regex): ValidationRule(.pattern(regex))
                            }
                        },
                        renamedFrom: attribute.renamedFrom)
                },
                relationships: entity.relationships.map {
                    var relationship = RelationshipDescription(
                        name: $0.name, destination: $0.destination, inverse: $0.inverse, cardinality: $0.cardinality,
                        isOrdered: $0.isOrdered, deleteRule: $0.deleteRule, isRequired: $0.isRequired,
                        minCount: $0.minCount, maxCount: $0.maxCount)
                    relationship.renamedFrom = $0.renamedFrom
                    return relationship
                },
                indexes: entity.indexes, uniqueConstraints: entity.uniqueConstraints, renamedFrom: entity.renamedFrom)
        }).versioned(version)
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

    /// Reads the file at `path` (see ``decode(_:path:)``).
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
