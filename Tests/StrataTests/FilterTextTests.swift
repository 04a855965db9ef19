import Foundation
import Strata
import StrataConformance
import Testing

/// The filter language in text: what it parses to, and where it says a mistake is.
@Suite struct FilterTextTests {
    let schema: Schema

    init() throws { schema = try TravelDomain.schema() }

    func parse(_ text: String, _ entity: String = "Person") throws -> FilterExpression {
        try FilterText.parse(text, entity: entity, schema: schema)
    }

    @Test func textParsesToTheSameFiltersAsTheDSL() throws {
        #expect(try parse(#"name == "Ana""#) == (\Person.name == "Ana").expression)
        #expect(
            try parse("age >= 30 && age < 40") == .and([(\Person.age >= 30).expression, (\Person.age < 40).expression]))
        #expect(
            try parse("email == nil || !(isVerified == true)")
                == .or([.isNil("email"), .not(.compare("isVerified", .equal, .bool(true), []))]))
        #expect(
            try parse(#"address.city in ["Lisbon", "Porto"]"#)
                == .inList("address.city", [.string("Lisbon"), .string("Porto")], []))
        #expect(
            try parse(#"name hasPrefix "an" [cd]"#)
                == .text("name", .hasPrefix, "an", [.caseInsensitive, .diacriticInsensitive]))
        #expect(
            try parse(#"traveller.name == "Ana""#, "Trip")
                == .relatedOne(relationship: "traveller", .compare("name", .equal, .string("Ana"), [])))
        #expect(
            try parse(#"budget > 500"#, "Trip") == .compare("budget", .greater, .double(500), []),
            "a number is read as the attribute's type")
        let id = UUID()
        #expect(try parse("id == \"\(id.uuidString)\"") == .compare("id", .equal, .uuid(id), []))
        #expect(
            try parse(#"start >= "2025-03-01""#, "Trip")
                == .compare("start", .greaterOrEqual, .date(Date(timeIntervalSince1970: 1_740_787_200)), []))
    }

    @Test(arguments: [
        (#"nme == "Ana""#, 1), (#"name = "Ana""#, 6), (#"name == "Ana"#, 9), (#"age >= 30 &&"#, 13), (#"(age > 1"#, 9),
        (#"age contains "3""#, 1), (#"name == "Ana" extra"#, 15), (#"age < nil"#, 7),
    ])
    func mistakesNameTheirColumn(_ text: String, _ column: Int) throws {
        let error = try #require(throws: StrataError.self) { try parse(text) }
        #expect(error.code == .invalidQuery)
        #expect(error.message.hasPrefix("column \(column):"), "\(text): \(error.message)")
    }
}
