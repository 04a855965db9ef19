import Foundation
import Strata
import StrataConformance
import Testing

@Suite("Schema evolution: stored shapes and inferred steps")
struct LightweightMigrationTests {
    /// The fixture schema with `change` applied to one entity.
    func schema(changing name: String, _ change: (inout EntityDescription) -> Void) throws -> Schema {
        var entities = try TravelDomain.schema().entities
        let index = try #require(entities.firstIndex { $0.name == name })
        change(&entities[index])
        return try Schema(entities: entities)
    }

    var stored: SchemaDescription { get throws { SchemaDescription(try TravelDomain.schema()) } }

    @Test func aStoredDescriptionRoundTripsThroughItsSchema() throws {
        let description = try stored
        #expect(SchemaDescription(try description.schema()) == description)
        let decoded = try SchemaDescription.decode(description.encoded(), path: "test")
        #expect(decoded == description)
    }

    @Test func theSameSchemaNeedsNoStep() throws {
        #expect(try LightweightMigration.steps(from: try stored, to: try TravelDomain.schema()).isEmpty)
    }

    @Test func addedAttributesTakeTheirDefaultAndRenamesMoveValues() throws {
        let changed = try schema(changing: "Stop") { stop in
            stop.attributes.append(AttributeDescription(name: "pinned", type: .bool, defaultValue: .bool(false)))
            stop.attributes.append(AttributeDescription(name: "note", type: .string, isOptional: true))
            if let index = stop.attributes.firstIndex(where: { $0.name == "city" }) {
                stop.attributes[index].name = "town"
                stop.attributes[index].renamedFrom = "city"
            }
            stop.indexes = stop.indexes.map { $0.map { $0 == "city" ? "town" : $0 } }
        }
        let steps = try LightweightMigration.steps(from: try stored, to: changed)
        #expect(steps.contains(.addAttribute(entity: "Stop", attribute: "pinned", default: .bool(false))))
        #expect(steps.contains(.addAttribute(entity: "Stop", attribute: "note", default: nil)))
        #expect(steps.contains(.renameAttribute(entity: "Stop", from: "city", to: "town")))
        #expect(!steps.contains(.removeAttribute(entity: "Stop", attribute: "city")), "a rename is not a drop")
        #expect(steps.contains(.addIndex(entity: "Stop", properties: ["town"])))
        #expect(steps.contains(.removeIndex(entity: "Stop", properties: ["city"])))
    }

    @Test func optionalityAndIndexesAndUniqueness() throws {
        let changed = try schema(changing: "Person") { person in
            if let age = person.attributes.firstIndex(where: { $0.name == "age" }) {
                person.attributes[age].isOptional = false
                person.attributes[age].defaultValue = .int(0)
            }
            if let name = person.attributes.firstIndex(where: { $0.name == "name" }) {
                person.attributes[name].isIndexed = true
            }
            person.uniqueConstraints.append(["name"])
        }
        let steps = try LightweightMigration.steps(from: try stored, to: changed)
        #expect(steps.contains(.makeRequired(entity: "Person", attribute: "age", default: .int(0))))
        #expect(steps.contains(.addAttributeIndex(entity: "Person", attribute: "name")))
        #expect(steps.contains(.addUniqueConstraint(entity: "Person", properties: ["name"])))
    }

    @Test func entitiesAddedRemovedAndRenamed() throws {
        var entities = try TravelDomain.schema().entities
        entities.append(
            EntityDescription(name: "Review", attributes: [AttributeDescription(name: "text", type: .string)]))
        let sample = try #require(entities.firstIndex { $0.name == "Sample" })
        entities[sample].renamedFrom = "Sample"
        entities[sample].name = "Specimen"
        let steps = try LightweightMigration.steps(from: try stored, to: try Schema(entities: entities))
        #expect(steps.contains(.addEntity("Review")))
        #expect(steps.contains(.renameEntity(from: "Sample", to: "Specimen")))
        #expect(!steps.contains(.removeEntity("Sample")))
        var fewer = try TravelDomain.schema().entities
        fewer.removeAll { $0.name == "Sample" }
        #expect(
            try LightweightMigration.steps(from: try stored, to: try Schema(entities: fewer)) == [
                .removeEntity("Sample")
            ])
    }

    @Test func whatNoStepCoversAsksForACustomStageNamingEachChange() throws {
        let changed = try schema(changing: "Stop") { stop in
            if let nights = stop.attributes.firstIndex(where: { $0.name == "nights" }) {
                stop.attributes[nights].type = .bool  // lossy: int → double would be inferred
                stop.attributes[nights].rules = []
            }
            stop.idKind = .string
        }
        do {
            _ = try LightweightMigration.steps(from: try stored, to: changed)
            Issue.record("expected migrationRequired")
        } catch let error as StrataError {
            #expect(error.code == .migrationRequired)
            #expect(error.entity == "Stop")
            #expect(error.message.contains("Stop.nights: the type changes from int to bool"), "\(error)")
            #expect(error.message.contains("Stop: the ID kind changes from uuid to string"), "\(error)")
            #expect(error.message.contains("custom stage"))
        }
    }

    /// Type changes that cannot lose information are inferred steps; a lossy one is inferred too
    /// once the stage is given a conversion.
    @Test func losslessTypeChangesAreStepsAndLossyOnesNeedAConversion() throws {
        let changed = try schema(changing: "Stop") { stop in
            if let nights = stop.attributes.firstIndex(where: { $0.name == "nights" }) {
                stop.attributes[nights].type = .double
                stop.attributes[nights].rules = []
            }
            if let name = stop.attributes.firstIndex(where: { $0.name == "name" }) {
                stop.attributes[name].type = .int
                stop.attributes[name].rules = []
            }
        }
        #expect(throws: StrataError.self) { _ = try LightweightMigration.steps(from: try stored, to: changed) }
        let steps = try LightweightMigration.steps(
            from: try stored, to: changed, converting: [.parsing("Stop", "name")])
        #expect(
            steps.contains(.changeType(entity: "Stop", attribute: "nights", from: .int, to: .double, explicit: false)))
        #expect(steps.contains(.changeType(entity: "Stop", attribute: "name", from: .string, to: .int, explicit: true)))
    }

    @Test func orderingAndCardinalityChangesAreLightweight() throws {
        let schema = try TravelDomain.schema()
        let description = SchemaDescription(schema)
        // A stored shape where Person.interests (ordered) was unordered.
        var older = description
        let person = try #require(older.entities.firstIndex { $0.name == "Person" })
        let interests = try #require(older.entities[person].relationships.firstIndex { $0.name == "interests" })
        older.entities[person].relationships[interests].isOrdered = false
        #expect(
            try LightweightMigration.steps(from: older, to: schema).contains(
                .changeOrdering(entity: "Person", relationship: "interests", ordered: true)))
        // The members are read from whichever side kept them, so a cardinality change is a step
        // (a to-one made from a to-many fails at run time only for a record with several).
        older.entities[person].relationships[interests].cardinality = .toOne
        older.entities[person].relationships[interests].storage = .reference
        #expect(
            try LightweightMigration.steps(from: older, to: schema).contains(
                .changeCardinality(entity: "Person", relationship: "interests", cardinality: .toMany)))
    }

    @Test func aRequiredAttributeWithoutDefaultIsAStepCheckedAgainstTheRecords() throws {
        let changed = try schema(changing: "Stop") { stop in
            stop.attributes.append(AttributeDescription(name: "rank", type: .int))  // required, no default
        }
        #expect(
            try LightweightMigration.steps(from: try stored, to: changed).contains(
                .addAttribute(entity: "Stop", attribute: "rank", default: nil)))
    }

    @Test func theDeclarationCarriesRenames() throws {
        struct Renamed: PersistentModel {
            var id: UUID
            var title: String
            static let entity = Entity<Renamed>(
                "Note", renamedFrom: "Memo", [.attribute(\.title, renamedFrom: "heading")])
        }
        let entity = try Renamed.entityDescription()
        #expect(entity.renamedFrom == "Memo")
        #expect(entity.attribute("title")?.renamedFrom == "heading")
    }
}
