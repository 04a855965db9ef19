import Foundation

/// The relationship members of an entity declaration: to-ones (a stored `Destination.ID`) and
/// to-manys (a ``ToMany`` handle), each with its inverse, delete rule, counts and former name.
extension EntityMember where Model: PersistentModel {
    /// A to-one whose inverse is a to-many on the destination.
    public static func toOne<D: PersistentModel>(
        _ keyPath: any KeyPath<Model, D.ID?> & Sendable, _ destination: D.Type, inverse: ToMany<D, Model>,
        deleteRule: DeleteRule = .nullify, renamedFrom: String? = nil
    ) -> EntityMember {
        toOne(
            keyPath, D.self, inverse: .success(inverse.name), required: false, deleteRule: deleteRule,
            renamedFrom: renamedFrom
        )
        .encoding(keyPath, { $0?.recordID.value ?? .null }) { value in
            value.isNull ? .some(nil) : RecordID(value).flatMap(D.ID.init(recordID:)).map { .some($0) }
        }
    }

    /// A required to-one whose inverse is a to-many on the destination.
    public static func toOne<D: PersistentModel>(
        _ keyPath: any KeyPath<Model, D.ID> & Sendable, _ destination: D.Type, inverse: ToMany<D, Model>,
        deleteRule: DeleteRule = .nullify, renamedFrom: String? = nil
    ) -> EntityMember {
        toOne(
            keyPath, D.self, inverse: .success(inverse.name), required: true, deleteRule: deleteRule,
            renamedFrom: renamedFrom
        )
        .encoding(keyPath, { $0.recordID.value }) { value in RecordID(value).flatMap(D.ID.init(recordID:)) }
    }

    /// A one-to-one: both sides are to-ones, kept pointing at each other by the engine.
    public static func toOne<D: PersistentModel>(
        _ keyPath: any KeyPath<Model, D.ID?> & Sendable, _ destination: D.Type, inverse: KeyPath<D, Model.ID?>,
        deleteRule: DeleteRule = .nullify, renamedFrom: String? = nil
    ) -> EntityMember {
        toOne(
            keyPath, D.self, inverse: KeyPathName.resolve(inverse as PartialKeyPath<D>), required: false,
            deleteRule: deleteRule, renamedFrom: renamedFrom
        )
        .encoding(keyPath, { $0?.recordID.value ?? .null }) { value in
            value.isNull ? .some(nil) : RecordID(value).flatMap(D.ID.init(recordID:)).map { .some($0) }
        }
    }

    /// A to-one without an inverse. Deleting the destination leaves the reference dangling (it reads as not found).
    public static func toOne<D: PersistentModel>(
        _ keyPath: any KeyPath<Model, D.ID?> & Sendable, _ destination: D.Type, deleteRule: DeleteRule = .nullify,
        renamedFrom: String? = nil
    ) -> EntityMember {
        toOne(keyPath, D.self, inverse: nil, required: false, deleteRule: deleteRule, renamedFrom: renamedFrom)
            .encoding(keyPath, { $0?.recordID.value ?? .null }) { value in
                value.isNull ? .some(nil) : RecordID(value).flatMap(D.ID.init(recordID:)).map { .some($0) }
            }
    }

    /// This to-one member, with an encoder that stores `value(model[keyPath: keyPath])` under the
    /// key path's name, and a decoder that reads it back.
    private func encoding<V>(
        _ keyPath: any KeyPath<Model, V> & Sendable, _ value: @escaping @Sendable (V) -> Value,
        decode: @escaping @Sendable (Value) -> V?
    ) -> EntityMember {
        var member = self
        if case .success(let name) = KeyPathName.resolve(keyPath as PartialKeyPath<Model>) {
            member.storedNames = [name]
            member.isReference = true
            member.encoder = ValueEncoder.reading(keyPath) { slots, base, read in slots[base] = value(read) }
            member.decoder = ValueDecoder.writing(keyPath, stored: name, decode)
        }
        return member
    }

    private static func toOne<D: PersistentModel>(
        _ keyPath: PartialKeyPath<Model>, _ destination: D.Type, inverse: Result<String, StrataError>?, required: Bool,
        deleteRule: DeleteRule, renamedFrom: String?
    ) -> EntityMember {
        let name = KeyPathName.resolve(keyPath)
        return EntityMember(
            part: .relationship {
                name.flatMap { name in
                    (inverse ?? .success("")).map { inverseName in
                        var description = RelationshipDescription(
                            name: name, destination: D.entityName, inverse: inverse == nil ? nil : inverseName,
                            cardinality: .toOne, deleteRule: deleteRule, isRequired: required)
                        description.renamedFrom = renamedFrom
                        return description
                    }
                }
            })
    }

    /// A to-many whose inverse is an optional to-one on the destination (one-to-many).
    public static func toMany<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, inverse: KeyPath<D, Model.ID?>, ordered: Bool = false,
        deleteRule: DeleteRule = .nullify, minCount: Int? = nil, maxCount: Int? = nil, renamedFrom: String? = nil
    ) -> EntityMember {
        toMany(
            relationship, inverse: KeyPathName.resolve(inverse as PartialKeyPath<D>), ordered: ordered,
            deleteRule: deleteRule, minCount: minCount, maxCount: maxCount, renamedFrom: renamedFrom)
    }

    /// A to-many whose inverse is a required to-one on the destination (one-to-many).
    public static func toMany<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, inverse: KeyPath<D, Model.ID>, ordered: Bool = false,
        deleteRule: DeleteRule = .nullify, minCount: Int? = nil, maxCount: Int? = nil, renamedFrom: String? = nil
    ) -> EntityMember {
        toMany(
            relationship, inverse: KeyPathName.resolve(inverse as PartialKeyPath<D>), ordered: ordered,
            deleteRule: deleteRule, minCount: minCount, maxCount: maxCount, renamedFrom: renamedFrom)
    }

    /// A many-to-many: both sides are to-many.
    public static func toMany<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, inverse: ToMany<D, Model>, ordered: Bool = false,
        deleteRule: DeleteRule = .nullify, minCount: Int? = nil, maxCount: Int? = nil, renamedFrom: String? = nil
    ) -> EntityMember {
        toMany(
            relationship, inverse: .success(inverse.name), ordered: ordered,
            deleteRule: deleteRule, minCount: minCount, maxCount: maxCount, renamedFrom: renamedFrom)
    }

    /// A to-many whose inverse the destination declares (its to-one or to-many names this one):
    /// the schema completes this side, as SwiftData does. Neither side naming the other is
    /// `invalidSchema` when the schema is built.
    public static func toMany<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, ordered: Bool = false, deleteRule: DeleteRule = .nullify,
        minCount: Int? = nil, maxCount: Int? = nil, renamedFrom: String? = nil
    ) -> EntityMember {
        EntityMember(
            part: .relationship {
                var description = RelationshipDescription(
                    name: relationship.name, destination: D.entityName, inverse: nil, cardinality: .toMany,
                    isOrdered: ordered, deleteRule: deleteRule, minCount: minCount, maxCount: maxCount)
                description.renamedFrom = renamedFrom
                return .success(description)
            })
    }

    private static func toMany<D: PersistentModel>(
        _ relationship: ToMany<Model, D>, inverse: Result<String, StrataError>, ordered: Bool,
        deleteRule: DeleteRule, minCount: Int?, maxCount: Int?, renamedFrom: String?
    ) -> EntityMember {
        EntityMember(
            part: .relationship {
                inverse.map {
                    var description = RelationshipDescription(
                        name: relationship.name, destination: D.entityName, inverse: $0, cardinality: .toMany,
                        isOrdered: ordered, deleteRule: deleteRule, minCount: minCount, maxCount: maxCount)
                    description.renamedFrom = renamedFrom
                    return description
                }
            })
    }
}
