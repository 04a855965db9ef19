import Foundation

/// The declaration of a model's entity: its name and members. Key paths are resolved to property
/// names when the declaration is made, so a typo'd or unsupported key path surfaces as an
/// `StrataError.Code.invalidSchema` error when the `Schema` is built.
public struct Entity<Model: PersistentModel>: Sendable {
    /// The entity's stored name.
    public let name: String
    /// The entity's name in the previous schema version.
    public let renamedFrom: String?
    let members: [EntityMember<Model>]
    /// Stored names that differ from the key-path text (`name:` overrides), by key-path text.
    let renamed: [String: String]
    /// Writes every declared stored property of a model into a record's values, through the
    /// declaration's own key paths (see `KeyPathCodec`).
    let encoders: [ValueEncoder<Model>]
    /// Writes every declared stored property of a model from a record (see `KeyPathDecoding`);
    /// nil when some stored member has no decoder (a composite, a computed key path).
    let decoders: [ValueDecoder<Model>]?
    /// The slots of this entity's records (attributes, then to-ones, as in the schema's
    /// `EntityDescription.layout`, which is the same object).
    let layout: RecordLayout

    /// - Parameters:
    ///   - name: The entity name; the type's name when omitted.
    ///   - members: Attributes, relationships, indexes, unique constraints and checks.
    ///   - renamedFrom: The entity's name in the previous schema version (a migration renames it).
    public init(_ name: String? = nil, renamedFrom: String? = nil, _ members: [EntityMember<Model>]) {
        self.name = name ?? String(describing: Model.self)
        self.renamedFrom = renamedFrom
        self.members = members
        var renamed: [String: String] = [:]
        for member in members { renamed.merge(member.renamed, uniquingKeysWith: { a, _ in a }) }
        self.renamed = renamed
        // Attributes take the first slots and to-ones the rest (the order of
        // `EntityDescription.storedPropertyNames`); each member's values are contiguous.
        let attributeNames = members.filter { !$0.isReference }.flatMap(\.storedNames)
        let referenceNames = members.filter(\.isReference).flatMap(\.storedNames)
        self.layout = .shared(attributeNames + referenceNames)
        var nextAttribute = 0
        var nextReference = attributeNames.count
        var encoders: [ValueEncoder<Model>] = []
        var decoders: [ValueDecoder<Model>] = []
        var stored = 0
        for member in members {
            let base = member.isReference ? nextReference : nextAttribute
            if member.isReference {
                nextReference += member.storedNames.count
            } else {
                nextAttribute += member.storedNames.count
            }
            guard var encoder = member.encoder else { continue }
            stored += 1
            encoder.base = base
            encoders.append(encoder)
            if var decoder = member.decoder {
                decoder.slot = base
                decoders.append(decoder)
            }
        }
        self.encoders = encoders
        self.decoders = decoders.count == stored ? decoders : nil
    }

    /// An entity named after the model type.
    public init(_ members: [EntityMember<Model>]) {
        self.init(nil, members)
    }

    /// The stored property name a key path denotes.
    public func propertyName(_ keyPath: PartialKeyPath<Model>) -> Result<String, StrataError> {
        KeyPathName.resolve(keyPath, readingThroughOptionals: true).map { renamed[$0] ?? $0 }
    }

    func description() throws -> EntityDescription {
        var entity = EntityDescription(name: name, idKind: Model.ID.recordIDKind)
        for member in members {
            switch member.part {
            case .attributes(let result): entity.attributes += try result.get()
            case .relationship(let resolve): entity.relationships.append(try resolve().get())
            // Indexes and constraints name properties by key path: stored under their stored names.
            case .index(let result): entity.indexes.append(try result.get().map { renamed[$0] ?? $0 })
            case .unique(let result): entity.uniqueConstraints.append(try result.get().map { renamed[$0] ?? $0 })
            case .check(let check): entity.recordChecks.append(check)
            case .search(let result): entity.searchIndexes.append(try result.get())
            }
            if case .attributes(let result) = member.part, member.isUnique {
                entity.uniqueConstraints += try result.get().map { [$0.name] }
            }
        }
        return EntityDescription(
            name: entity.name, idKind: entity.idKind, attributes: entity.attributes,
            relationships: entity.relationships, indexes: entity.indexes,
            uniqueConstraints: entity.uniqueConstraints, recordChecks: entity.recordChecks, renamedFrom: renamedFrom,
            searchIndexes: entity.searchIndexes)
    }
}

/// One member of an ``Entity`` declaration, made with the static factories:
/// `.attribute`, `.composite`, `.toOne`, `.toMany`, `.index`, `.unique`, `.check`.
public struct EntityMember<Model>: Sendable {
    enum Part: Sendable {
        case attributes(Result<[AttributeDescription], StrataError>)
        /// Resolved when the schema is built: models name each other, and reading another model's
        /// `entity` while declaring this one would recurse into its static initialiser.
        case relationship(@Sendable () -> Result<RelationshipDescription, StrataError>)
        case index(Result<[String], StrataError>)
        case unique(Result<[String], StrataError>)
        case check(RecordCheck)
        case search(Result<SearchIndexDescription, StrataError>)
    }

    var part: Part
    var isUnique = false
    var renamed: [String: String] = [:]
    /// For members that store values (attributes, composites, to-ones): how to read them off a model.
    var encoder: ValueEncoder<Model>?
    /// For the same members: how to write them into a model (nil where that is not possible).
    var decoder: ValueDecoder<Model>?
    /// The stored property names this member fills, in order (empty for to-manys and the rest).
    var storedNames: [String] = []
    /// Whether this member is a to-one reference (stored after every attribute).
    var isReference = false

    static func describeAttribute<Root, V: AttributeConvertible>(
        _ keyPath: KeyPath<Root, V>, type: V.Type, name: String?, default defaultValue: V?, indexed: Bool,
        rules: [ValidationRule]
    ) -> Result<AttributeDescription, StrataError> {
        let resolved = name.map { Result.success($0) } ?? KeyPathName.resolve(keyPath as PartialKeyPath<Root>)
        return resolved.map {
            AttributeDescription(
                name: $0, type: V.attributeType, isOptional: V.isOptionalAttribute,
                defaultValue: defaultValue?.attributeValue, isIndexed: indexed,
                allowedValues: V.allowedAttributeValues, rules: rules, element: V.elementAttributeType)
        }
    }

    static func names(_ keyPaths: [PartialKeyPath<Model>]) -> Result<[String], StrataError> {
        var names: [String] = []
        for keyPath in keyPaths {
            switch KeyPathName.resolve(keyPath) {
            case .success(let name): names.append(name)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(names)
    }
}

extension EntityMember where Model: PersistentModel {
    /// A scalar, optional or enum attribute.
    ///
    /// - Parameters:
    ///   - keyPath: The model's stored property.
    ///   - name: The stored name, when it differs from the property's.
    ///   - defaultValue: Filled in for records written before the attribute existed (and by
    ///     lightweight migrations).
    ///   - indexed: Keep an index: filters and sorts on it are answered without a scan.
    ///   - unique: No two records may hold the same non-null value.
    ///   - rules: Validation applied on every save.
    ///   - renamedFrom: The attribute's name in the previous schema version: a migration
    ///     moves its values rather than dropping it and adding this one.
    public static func attribute<V: AttributeConvertible>(
        _ keyPath: any KeyPath<Model, V> & Sendable, name: String? = nil, default defaultValue: V? = nil,
        indexed: Bool = false,
        unique: Bool = false, rules: [ValidationRule] = [], renamedFrom: String? = nil
    ) -> EntityMember {
        var description = describeAttribute(
            keyPath, type: V.self, name: name, default: defaultValue, indexed: indexed, rules: rules)
        if case .success(var attribute) = description {
            attribute.renamedFrom = renamedFrom
            description = .success(attribute)
        }
        var member = EntityMember(part: .attributes(description.map { [$0] }))
        if case .success(let attribute) = description {
            let stored = attribute.name
            member.storedNames = [stored]
            member.encoder = ValueEncoder.reading(keyPath) { slots, base, value in slots[base] = value.attributeValue }
            member.decoder = ValueDecoder.writing(keyPath, stored: stored) { V.fromAttributeValue($0) }
        }
        member.isUnique = unique
        if let name, case .success(let text) = KeyPathName.resolve(keyPath as PartialKeyPath<Model>) {
            member.renamed[text] = name
        }
        return member
    }

    /// A composite attribute: one stored attribute per field, named `property.field`.
    public static func composite<C: CompositeAttribute>(_ keyPath: any KeyPath<Model, C> & Sendable) -> EntityMember {
        let fields = KeyPathName.resolve(keyPath as PartialKeyPath<Model>).flatMap {
            prefix -> Result<[AttributeDescription], StrataError> in
            var attributes: [AttributeDescription] = []
            for field in C.fields {
                switch field.attribute {
                case .success(var attribute):
                    attribute.name = prefix + "." + attribute.name
                    attributes.append(attribute)
                case .failure(let error):
                    return .failure(error)
                }
            }
            return .success(attributes)
        }
        var member = EntityMember(part: .attributes(fields))
        if case .success(let attributes) = fields { member.storedNames = attributes.map(\.name) }
        if case .success = fields {
            let readers = C.fields.compactMap { field in field.reader.map(\.read) }
            if readers.count == C.fields.count {
                member.encoder = ValueEncoder.reading(keyPath) { slots, base, composite in
                    for (offset, read) in readers.enumerated() { slots[base + offset] = read(composite) }
                }
            }
        }
        return member
    }

    /// A (non-unique) index over one or more attributes or to-ones.
    public static func index(_ keyPaths: PartialKeyPath<Model>...) -> EntityMember {
        EntityMember(part: .index(names(keyPaths)))
    }

    /// A full-text index named `name` over one or more text attributes, their words counting
    /// alike: `.search("text", \.title, \.body)`. Search it with `Filter.search(_:in:)` and order
    /// by `Query.sorted(byRelevanceOf:)`.
    public static func search(_ name: String, _ keyPaths: PartialKeyPath<Model>...) -> EntityMember {
        search(name, weighted: keyPaths.map { ($0, 1) })
    }

    /// A full-text index whose attributes' words count by weight in the relevance score:
    /// `.search("text", weighted: [(\.title, 3), (\.body, 1)])` ranks a word in the title as
    /// three in the body.
    public static func search(_ name: String, weighted fields: [(PartialKeyPath<Model>, Double)]) -> EntityMember {
        let described = names(fields.map(\.0)).map { names in
            SearchIndexDescription(
                name: name, fields: zip(names, fields).map { SearchIndexDescription.Field($0, weight: $1.1) })
        }
        return EntityMember(part: .search(described))
    }

    /// A unique constraint over one or more attributes or to-ones (compound when several).
    public static func unique(_ keyPaths: PartialKeyPath<Model>...) -> EntityMember {
        EntityMember(part: .unique(names(keyPaths)))
    }

    /// A named record-level check over the typed model, reported against `property` when it fails.
    public static func check(
        _ name: String, on property: PartialKeyPath<Model>? = nil, _ body: @escaping @Sendable (Model) -> Bool
    ) -> EntityMember {
        let propertyName = property.flatMap { try? KeyPathName.resolve($0).get() }
        return EntityMember(
            part: .check(
                RecordCheck(name: name, property: propertyName) { record in
                    guard let model = try? Model(record: record) else { return "cannot be read as \(Model.self)" }
                    return body(model) ? nil : "fails \(name)"
                }))
    }
}
