import Foundation
import Strata
import StrataConformance
import Testing

@Suite struct SchemaTests {
    func invalid(_ entities: [EntityDescription]) throws -> StrataError {
        do {
            _ = try Schema(entities: entities)
        } catch let error as StrataError {
            return error
        }
        Issue.record("expected the schema to be rejected")
        return StrataError(.invalidSchema, "not thrown")
    }

    func entity(
        _ name: String, attributes: [String] = ["name"], relationships: [RelationshipDescription] = [],
        unique: [[String]] = [], indexes: [[String]] = []
    ) -> EntityDescription {
        EntityDescription(
            name: name, attributes: attributes.map { AttributeDescription(name: $0, type: .string) },
            relationships: relationships, indexes: indexes, uniqueConstraints: unique)
    }

    @Test func theTravelDomainIsValid() throws {
        let schema = try TravelDomain.schema()
        #expect(schema.entities.count == TravelDomain.models.count)
        let person = try #require(schema.entity("Person"))
        #expect(person.attribute("address.city")?.type == .string)
        #expect(person.attribute("address.city")?.isIndexed == true)
        #expect(person.attribute("status")?.allowedValues == [.string("regular"), .string("silver"), .string("gold")])
        #expect(person.attribute("status")?.defaultValue == .string("regular"))
        #expect(person.uniqueConstraints == [["email"]])
        #expect(try #require(schema.entity("Trip")).uniqueConstraints == [["name", "start"]])
        #expect(try #require(schema.entity("Tag")).idKind == .string)
        #expect(try #require(schema.entity("Agency")).idKind == .int)
    }

    @Test func relationshipStorageFollowsThePairOfSides() throws {
        let schema = try TravelDomain.schema()
        func storage(_ entity: String, _ relationship: String) -> RelationshipDescription.Storage? {
            schema.entity(entity)?.relationship(relationship)?.storage
        }
        #expect(storage("Trip", "traveller") == .reference)
        #expect(storage("Person", "trips") == .inverseReference)
        #expect(storage("Trip", "stops") == .orderedLinks)
        #expect(storage("Person", "interests") == .links, "the ordered side owns a many-to-many")
        #expect(storage("Tag", "people") == .inverseLinks)
        #expect(storage("Tag", "trips") == .links, "\"Tag.trips\" sorts before \"Trip.tags\"")
        #expect(storage("Trip", "tags") == .inverseLinks)
        #expect(schema.entity("Stop")?.relationship("trip")?.isRequired == true)
        #expect(schema.entity("Trip")?.relationship("traveller")?.isRequired == false)
    }

    /// An inverse named on one side only is completed on the other (SwiftData's rule); named on
    /// neither side, a to-many is still refused.
    @Test func anInverseNamedOnOneSideIsCompletedOnTheOther() throws {
        let owner = EntityDescription(
            name: "Owner",
            relationships: [
                RelationshipDescription(name: "pets", destination: "Pet", inverse: nil, cardinality: .toMany)
            ])
        let pet = EntityDescription(
            name: "Pet",
            relationships: [
                RelationshipDescription(name: "owner", destination: "Owner", inverse: "pets", cardinality: .toOne)
            ])
        let schema = try Schema(entities: [owner, pet])
        #expect(schema.entity("Owner")?.relationship("pets")?.inverse == "owner")
        var unnamed = pet
        unnamed.relationships[0].inverse = nil
        let error = try invalid([owner, unnamed])
        #expect(error.code == .invalidSchema && error.message.contains("needs an inverse"), "\(error)")
    }

    @Test func duplicateEntity() throws {
        let error = try invalid([entity("A"), entity("A")])
        #expect(error.code == .invalidSchema && error.entity == "A")
    }

    @Test func duplicateProperty() throws {
        let error = try invalid([entity("A", attributes: ["name", "name"])])
        #expect(error.code == .invalidSchema && error.property == "name")
    }

    @Test func reservedIDName() throws {
        #expect(try invalid([entity("A", attributes: ["id"])]).property == "id")
    }

    @Test func inverseThatDoesNotExist() throws {
        let a = entity(
            "A",
            relationships: [
                RelationshipDescription(name: "b", destination: "B", inverse: "missing", cardinality: .toOne)
            ])
        let error = try invalid([a, entity("B")])
        #expect(error.entity == "A" && error.property == "b")
        #expect(error.message.contains("does not exist"))
    }

    @Test func inverseThatDoesNotPointBack() throws {
        let a = entity(
            "A",
            relationships: [RelationshipDescription(name: "b", destination: "B", inverse: "as", cardinality: .toOne)])
        let c = entity(
            "C",
            relationships: [RelationshipDescription(name: "b", destination: "B", inverse: "as", cardinality: .toOne)])
        let b = entity(
            "B",
            relationships: [RelationshipDescription(name: "as", destination: "C", inverse: "b", cardinality: .toMany)])
        let error = try invalid([a, b, c])
        #expect(error.entity == "A" && error.message.contains("does not point back"))
    }

    @Test func unknownDestination() throws {
        let a = entity(
            "A",
            relationships: [
                RelationshipDescription(name: "b", destination: "Nowhere", inverse: nil, cardinality: .toOne)
            ])
        #expect(try invalid([a]).property == "b")
    }

    @Test func toManyWithoutInverse() throws {
        let a = entity(
            "A",
            relationships: [RelationshipDescription(name: "bs", destination: "B", inverse: nil, cardinality: .toMany)])
        #expect(try invalid([a, entity("B")]).message.contains("needs an inverse"))
    }

    @Test func uniqueConstraintOnUnknownAttribute() throws {
        let error = try invalid([entity("A", unique: [["name", "ghost"]])])
        #expect(error.entity == "A" && error.property == "ghost")
    }

    @Test func indexOnUnknownAttribute() throws {
        #expect(try invalid([entity("A", indexes: [["ghost"]])]).property == "ghost")
    }

    @Test func badPatternAndBadDefault() throws {
        let pattern = EntityDescription(
            name: "A", attributes: [AttributeDescription(name: "code", type: .string, rules: [.pattern("([")])])
        #expect(try invalid([pattern]).property == "code")
        let badDefault = EntityDescription(
            name: "A", attributes: [AttributeDescription(name: "n", type: .int, defaultValue: .string("x"))])
        #expect(try invalid([badDefault]).property == "n")
    }

    @Test func minAboveMax() throws {
        let a = entity(
            "A",
            relationships: [
                RelationshipDescription(
                    name: "bs", destination: "B", inverse: "a", cardinality: .toMany, minCount: 3, maxCount: 1)
            ])
        let b = entity(
            "B",
            relationships: [RelationshipDescription(name: "a", destination: "A", inverse: "bs", cardinality: .toOne)])
        #expect(try invalid([a, b]).property == "bs")
    }

    @Test func orderedToOneAndDoublyOrderedManyToMany() throws {
        let a = entity(
            "A",
            relationships: [
                RelationshipDescription(name: "b", destination: "B", inverse: nil, cardinality: .toOne, isOrdered: true)
            ])
        #expect(try invalid([a, entity("B")]).message.contains("ordered"))
        let x = entity(
            "X",
            relationships: [
                RelationshipDescription(
                    name: "ys", destination: "Y", inverse: "xs", cardinality: .toMany, isOrdered: true)
            ])
        let y = entity(
            "Y",
            relationships: [
                RelationshipDescription(
                    name: "xs", destination: "X", inverse: "ys", cardinality: .toMany, isOrdered: true)
            ])
        #expect(try invalid([x, y]).message.contains("one side only"))
    }

    @Test func typedDeclarationErrorsSurfaceWhenTheSchemaIsBuilt() throws {
        #expect(throws: StrataError.self) { try Schema(BrokenModel.self) }
        do {
            _ = try Schema(BrokenModel.self)
        } catch let error as StrataError {
            #expect(error.code == .invalidSchema)
            #expect(error.message.contains("optional chaining"))
        }
    }
}

/// A model whose declaration uses an unsupported key path (optional chaining into a composite).
struct BrokenModel: PersistentModel {
    var id = UUID()
    var home: Address?
    static let entity = Entity<BrokenModel>([.attribute(\.home?.city)])
}
