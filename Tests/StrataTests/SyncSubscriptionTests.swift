import Foundation
import StrataConformance
import Testing

@testable import Strata
@testable import StrataSync

/// Subscriptions' parameters are written into the filter as literals the filter language reads
/// back exactly, and coverage follows relationships through their inverses.
@Suite struct SyncSubscriptionTests {
    let schema: Schema
    init() throws { schema = try TravelDomain.schema() }

    @Test func parametersBecomeLiteralsThatReadBackExactly() throws {
        let date = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_789)
        let subscription = try SyncSubscription(
            "p", Trip.self, where: #"name == $name && start == $start && name != "$name""#,
            parameters: ["name": .string(#"a "quoted" \ name"#), "start": .date(date)])
        let filter = try FilterText.parse(try #require(subscription.filter), entity: "Trip", schema: schema)
        #expect(
            filter
                == .and([
                    .compare("name", .equal, .string(#"a "quoted" \ name"#), []),
                    .compare("start", .equal, .date(date), []),
                    .compare("name", .notEqual, .string("$name"), []),
                ]), "a `$` inside a quoted literal is text")
        let listed = try SyncSubscription(
            "l", Person.self, where: "name in $names", parameters: ["names": .array([.string("A"), .string("B")])])
        #expect(listed.filter == #"name in ["A", "B"]"#)
    }

    @Test func aMissingOrUnwritableParameterIsInvalidQuery() {
        for (text, parameters) in [
            ("name == $who", [:]), ("name == $", [:]), ("name == $d", ["d": Value.decimal(1)]),
            ("rating == $x", ["x": Value.double(.nan)]),
        ] as [(String, [String: Value])] {
            #expect(throws: StrataError.self, "\(text)") {
                try SyncSubscription("x", Person.self, where: text, parameters: parameters)
            }
        }
    }

    @Test func coverageFollowsRelationshipsThroughTheirInverses() throws {
        let coverage = try SubscriptionCoverage(
            [
                try SyncSubscription("a", Person.self, where: #"name == "Ana""#, including: ["trips.stops"]),
                try SyncSubscription("b", Trip.self, where: #"name == "Rome""#),
            ], schema: schema)
        let ana = FilterExpression.compare("name", .equal, .string("Ana"), [])
        #expect(coverage.filters["Person"] == ana)
        #expect(
            coverage.filters["Trip"]
                == .or([.relatedOne(relationship: "traveller", ana), .compare("name", .equal, .string("Rome"), [])]))
        #expect(
            coverage.filters["Stop"]
                == .relatedOne(relationship: "trip", .relatedOne(relationship: "traveller", ana)))
        #expect(coverage.dependent == ["Trip", "Stop"])
        #expect(coverage.followed == ["Person": ["trips.stops"]])
        #expect(coverage.filters["Tag"] == nil, "not covered")
    }

    @Test func theWireFormCarriesNoTimeToLive() throws {
        let subscription = try SyncSubscription("a", Person.self, timeToLive: .seconds(60))
        let query = SyncWire.query(PullRequest(clientID: "c", cursor: nil, subscriptions: [subscription]))
        #expect(query["subscriptions"] == #"[{"entity":"Person","name":"a"}]"#)
        let back = try SyncWire.pullRequest(query)
        #expect(back.subscriptions == [subscription.served])
        var tooMany = query
        tooMany["subscriptions"] =
            "["
            + Array(repeating: #"{"entity":"Person","name":"a"}"#, count: 65)
            .joined(separator: ",") + "]"
        #expect(throws: StrataError.self) { try SyncWire.pullRequest(tooMany) }
    }
}
