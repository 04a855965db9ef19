import Foundation
import Strata
import StrataConformance
import Testing

/// Every attribute kind a model may use.
struct Everything: PersistentModel, Equatable {
    enum Level: Int, Codable, CaseIterable, AttributeConvertible {
        case low = 1
        case high = 2
    }

    var id: Int64
    var flag: Bool
    var int: Int
    var int32: Int32
    var int16: Int16
    var int8: Int8
    var uint8: UInt8
    var uint32: UInt32
    var double: Double
    var float: Float
    var text: String
    var date: Date
    var uuid: UUID
    var bytes: Data
    var level: Level
    var maybeInt: Int?
    var maybeText: String?
    var maybeLevel: Level?
    var address: Address

    static let entity = Entity<Everything>([
        .attribute(\.flag), .attribute(\.int), .attribute(\.int32), .attribute(\.int16), .attribute(\.int8),
        .attribute(\.uint8), .attribute(\.uint32), .attribute(\.double), .attribute(\.float), .attribute(\.text),
        .attribute(\.date), .attribute(\.uuid), .attribute(\.bytes), .attribute(\.level), .attribute(\.maybeInt),
        .attribute(\.maybeText), .attribute(\.maybeLevel), .composite(\.address),
    ])

    static let sample = Everything(
        id: 42, flag: true, int: -7, int32: Int32.min, int16: 300, int8: -8, uint8: 255, uint32: UInt32.max,
        double: 2.5,
        float: 1.25, text: "héllo", date: Date(timeIntervalSince1970: 12.5), uuid: UUID(), bytes: Data([0, 1, 2]),
        level: .high, maybeInt: nil, maybeText: "x", maybeLevel: .low,
        address: Address(city: "Faro", street: nil, postcode: "8000"))
}

@Suite struct ModelMappingTests {
    @Test func everyAttributeKindRoundTrips() throws {
        let record = try Everything.sample.record()
        #expect(record.entity == "Everything")
        #expect(record.id == .int(42))
        #expect(try Everything(record: record) == Everything.sample)
    }

    @Test func recordValuesAreFlatAndTyped() throws {
        let record = try Everything.sample.record()
        #expect(record["level"] == .int(2))
        #expect(record["uint32"] == .int(Int64(UInt32.max)))
        #expect(record["float"] == .double(1.25))
        #expect(record["address.city"] == .string("Faro"))
        #expect(record["address.street"] == .null)
        #expect(record["maybeInt"] == .null)
        #expect(record.values["id"] == nil, "the ID is not a stored value")
        #expect(record["id"] == .int(42), "but predicates can name it")
    }

    @Test func theSchemaMatchesTheDeclaration() throws {
        let entity = try Everything.entityDescription()
        #expect(entity.idKind == .int)
        #expect(entity.attribute("level")?.type == .int)
        #expect(entity.attribute("level")?.allowedValues == [.int(1), .int(2)])
        #expect(entity.attribute("maybeLevel")?.isOptional == true)
        #expect(entity.attribute("float")?.type == .double)
        #expect(entity.attribute("address.postcode")?.isOptional == true)
        #expect(entity.attribute("address.city")?.isOptional == false)
    }

    @Test func aWrongTypeIsATypedErrorNamingTheProperty() throws {
        var record = try Everything.sample.record()
        record["int"] = .string("seven")
        let error = try #require(throws: StrataError.self) { try Everything(record: record) }
        #expect(error.code == .typeMismatch)
        #expect(error.property == "int")
        #expect(error.entity == "Everything")
    }

    @Test func aMissingRequiredValueIsATypedError() throws {
        var record = try Everything.sample.record()
        record.values["text"] = nil
        let error = try #require(throws: StrataError.self) { try Everything(record: record) }
        #expect(error.code == .missingValue || error.code == .typeMismatch)
    }

    @Test func anOutOfRangeIntegerIsATypedError() throws {
        var record = try Everything.sample.record()
        record["int8"] = .int(1_000)
        #expect(throws: StrataError.self) { try Everything(record: record) }
    }

    @Test func keyPathsNameStoredProperties() throws {
        #expect(try Person.entity.propertyName(\Person.address.city).get() == "address.city")
        #expect(try Person.entity.propertyName(\Person.name).get() == "name")
        #expect(try Person.entity.propertyName(\Person.id).get() == "id")
    }

    /// An attribute stored under another name is indexed and constrained under that name.
    @Test func indexesAndConstraintsUseStoredNames() throws {
        struct Renamed: PersistentModel {
            var id: UUID
            var title: String
            var kind: String
            static let entity = Entity<Renamed>([
                .attribute(\.title, name: "heading"), .attribute(\.kind, name: "sort"),
                .index(\.title), .unique(\.title, \.kind),
            ])
        }
        let description = try Renamed.entityDescription()
        #expect(description.indexes == [["heading"]])
        #expect(description.uniqueConstraints == [["heading", "sort"]])
        #expect(try Schema(models: [Renamed.self]).entity("Renamed") != nil)
    }

    @Test func filtersBuildTheExpectedTree() throws {
        let filter: Filter<Trip> = \.budget > 10 && !.isNil(\.end) || .any(Trip.stops, where: \Stop.city == "Porto")
        let expected = FilterExpression.or([
            .and([.compare("budget", .greater, .double(10), []), .not(.isNil("end"))]),
            .anyRelated(relationship: "stops", .compare("city", .equal, .string("Porto"), [])),
        ])
        #expect(filter.expression == expected)
        let noTraveller: Filter<Trip> = \.traveller == nil
        #expect(noTraveller.expression == .isNil("traveller"))
    }

    @Test func queriesCarryTheirSortAndPage() throws {
        let plan = try Query<Trip>.where(\.isFavorite == true).sorted(by: \.start, .descending).sorted(by: \.name)
            .offset(5).limit(10).plan()
        #expect(plan.entity == "Trip")
        #expect(plan.sort == [SortKey("start", ascending: false), SortKey("name")])
        #expect(plan.limit == 10 && plan.offset == 5)
    }
}
