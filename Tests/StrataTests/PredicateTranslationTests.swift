import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// Foundation `#Predicate` and `SortDescriptor` where filters and sort keys are: each supported
/// form becomes the filter the DSL would build (so backends evaluate it natively), and anything
/// else is a typed error naming the expression.
@Suite struct PredicateTranslationTests {
    func expression<M: PersistentModel>(_ predicate: Predicate<M>) throws -> FilterExpression {
        try Query(predicate).plan().predicate ?? .constant(true)
    }

    @Test func comparisonsLogicAndNilChecksTranslateToTheFilterTree() throws {
        let limit = 1_000.0
        let gold = MemberStatus.gold
        #expect(
            try expression(#Predicate<Trip> { $0.name == "Porto" }) == .compare("name", .equal, .string("Porto"), []))
        #expect(
            try expression(#Predicate<Trip> { $0.budget != nil && $0.isFavorite })
                == .and([.not(.isNil("budget")), .compare("isFavorite", .equal, .bool(true), [])]))
        #expect(
            try expression(#Predicate<Trip> { $0.budget == nil || !$0.isFavorite })
                == .or([.isNil("budget"), .not(.compare("isFavorite", .equal, .bool(true), []))]))
        #expect(
            try expression(#Predicate<Trip> { $0.budget! > limit }) == .compare("budget", .greater, .double(1_000), []))
        #expect(
            try expression(#Predicate<Stop> { 3 <= $0.nights }) == .compare("nights", .greaterOrEqual, .int(3), []),
            "a constant on the left is flipped")
        #expect(
            try expression(#Predicate<Person> { $0.address.city == "Lisbon" })
                == .compare("address.city", .equal, .string("Lisbon"), []), "a composite's field")
        #expect(
            try expression(#Predicate<Person> { $0.status == gold }) == .compare("status", .equal, .string("gold"), []),
            "an enum by its raw value")
    }

    @Test func coalescingListsRangesAndTextTranslate() throws {
        let cities = ["Lisbon", "Porto"]
        #expect(
            try expression(#Predicate<Trip> { ($0.budget ?? 0) > 500 })
                == .compare("budget", .greater, .double(500), []), "0 > 500 is false: nil never matches")
        #expect(
            try expression(#Predicate<Trip> { ($0.budget ?? 0) < 500 })
                == .or([.compare("budget", .less, .double(500), []), .isNil("budget")]), "0 < 500: nil matches")
        #expect(
            try expression(#Predicate<Stop> { cities.contains($0.city) })
                == .inList("city", [.string("Lisbon"), .string("Porto")], []))
        #expect(
            try expression(#Predicate<Stop> { (1...3).contains($0.nights) }) == .between("nights", .int(1), .int(3)))
        #expect(
            try expression(#Predicate<Stop> { (1..<3).contains($0.nights) })
                == .and([.compare("nights", .greaterOrEqual, .int(1), []), .compare("nights", .less, .int(3), [])]))
        #expect(try expression(#Predicate<Stop> { $0.name.contains("elé") }) == .text("name", .contains, "elé", []))
        #expect(try expression(#Predicate<Stop> { $0.name.starts(with: "Al") }) == .text("name", .hasPrefix, "Al", []))
    }

    @Test func whatCannotBeTranslatedIsATypedErrorNamingIt() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let stops = store.repository(Stop.self)
        let arithmetic = await #expect(throws: StrataError.self) {
            try await stops.fetch(where: #Predicate { $0.nights * 2 > 4 })
        }
        #expect(arithmetic?.code == .invalidQuery)
        #expect(arithmetic?.entity == "Stop")
        #expect(arithmetic?.message.contains("Arithmetic") == true, "\(arithmetic?.message ?? "")")
        let twoProperties = await #expect(throws: StrataError.self) {
            try await stops.fetch(where: #Predicate { $0.name == $0.city })
        }
        #expect(twoProperties?.code == .invalidQuery)
        #expect(twoProperties?.message.contains("Equal") == true, "\(twoProperties?.message ?? "")")
        let conditional = await #expect(throws: StrataError.self) {
            try await stops.count(where: #Predicate { $0.nights > 1 ? true : false })
        }
        #expect(conditional?.message.contains("Conditional") == true, "\(conditional?.message ?? "")")
    }

    @Test func predicatesAndSortDescriptorsGiveTheDSLsResults() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let data = try await TravelData.seed(store)
        let trips = store.repository(Trip.self)
        let viaPredicate = try await trips.fetch(
            Query(#Predicate<Trip> { ($0.budget ?? 0) >= 800 }).sorted(
                by: SortDescriptor(\Trip.budget, order: .reverse)))
        let viaDSL = try await trips.fetch(Query<Trip>.where(\.budget >= 800.0).sorted(by: \.budget, .descending))
        #expect(viaPredicate == viaDSL)
        #expect(viaPredicate.map(\.name) == [data.saoPauloBusiness.name, data.lisbonSpring.name, data.portoWine.name])
        let byName = try await trips.fetch(Query<Trip>.all.sorted(by: SortDescriptor(\Trip.name)))
        #expect(
            byName.map(\.name) == [
                "Açores Hike", "Lisbon Spring", "Porto Wine", "São Paulo Business", "lisbon winter",
            ],
            "names by UTF-8 bytes whatever the descriptor's comparator")
        let twoKeys = try await trips.fetch(
            Query<Trip>.all.sorted(by: [SortDescriptor(\Trip.budget, order: .reverse), SortDescriptor(\Trip.name)]))
        #expect(
            twoKeys.map(\.name) == [
                "São Paulo Business", "Lisbon Spring", "Porto Wine", "lisbon winter", "Açores Hike",
            ], "nil budgets last, descending")
        let ana: UUID? = data.ana.id
        #expect(try await trips.count(where: #Predicate { $0.traveller == ana }) == 2, "a to-one by its ID")
        let deleted = try await store.repository(Stop.self).delete(where: #Predicate { $0.city == "Lisbon" })
        #expect(deleted == 2)
    }
}
