import Foundation
import Strata

/// Expected results are derived from ``TravelData``'s documented seed.
enum QueryChecks {
    static func people(_ store: Store, _ predicate: Filter<Person>) async throws -> Set<String> {
        Set(try await store.repository(Person.self).fetch(where: predicate).map(\.name))
    }

    static func trips(_ store: Store, _ predicate: Filter<Trip>) async throws -> Set<String> {
        Set(try await store.repository(Trip.self).fetch(where: predicate).map(\.name))
    }

    static func tripNames(_ store: Store, _ query: Query<Trip>) async throws -> [String] {
        try await store.repository(Trip.self).fetch(query).map(\.name)
    }

    static let all: [ConformanceCheck] =
        comparisons + text + logic + relationships + ordering + ties + errors + pages + declared + normalization
        + positions + nesting

    static let comparisons: [ConformanceCheck] = [
        ConformanceCheck(.queries, "equalOnInt") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, \.age == 34), ["Ana"])
        },
        ConformanceCheck(.queries, "notEqualIncludesNil") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, \.age != 34), ["Bruno", "Clara", "Dário"])
        },
        ConformanceCheck(.queries, "lessExcludesNil") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, \.age < 34), ["Bruno"])
            try expectEqual(try await people(store, \.age <= 34), ["Ana", "Bruno"])
        },
        ConformanceCheck(.queries, "greaterExcludesNil") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, \.age > 30), ["Ana", "Dário"])
            try expectEqual(try await people(store, \.age >= 45), ["Dário"])
        },
        ConformanceCheck(.queries, "compareDoubles") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await trips(store, \.budget > 800), ["Lisbon Spring", "São Paulo Business"])
            try expectEqual(
                try await trips(store, \.budget >= 800), ["Lisbon Spring", "São Paulo Business", "Porto Wine"])
        },
        ConformanceCheck(.queries, "compareDates") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await trips(store, \.start < TravelDomain.day(130)), ["Lisbon Spring", "Porto Wine"])
            try expectEqual(try await trips(store, \.start == TravelDomain.day(181)), ["Açores Hike"])
        },
        ConformanceCheck(.queries, "compareStrings") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, \.name < "C"), ["Ana", "Bruno"])
            try expectEqual(try await people(store, \.name >= "Clara"), ["Clara", "Dário"])
        },
        ConformanceCheck(.queries, "inList") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, .in(\.status, [.gold, .silver])), ["Ana", "Bruno"])
            try expectEqual(try await people(store, .in(\.age, [28, 45, 99])), ["Bruno", "Dário"])
        },
        ConformanceCheck(.queries, "inEmptyListMatchesNothing") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, .in(\.status, [])), [])
            try expectEqual(try await people(store, !.in(\.status, [])), ["Ana", "Bruno", "Clara", "Dário"])
        },
        ConformanceCheck(.queries, "betweenIsInclusive") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, .between(\.age, 28, 34)), ["Ana", "Bruno"])
            try expectEqual(
                try await trips(store, .between(\.start, TravelDomain.day(129), TravelDomain.day(257))),
                ["Porto Wine", "Açores Hike", "São Paulo Business"])
        },
        ConformanceCheck(.queries, "compositeFieldIsQueryable") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, \.address.city == "Lisbon"), ["Ana", "Dário"])
            try expectEqual(try await people(store, .isNil(\.address.street)), ["Bruno", "Clara", "Dário"])
        },
        ConformanceCheck(.queries, "enumAndBoolAreQueryable") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, \.status == .regular), ["Clara", "Dário"])
            try expectEqual(try await people(store, \.isVerified == true), ["Ana", "Clara"])
        },
        ConformanceCheck(.queries, "referenceAndIDAreQueryable") { c in
            let (store, data) = try await c.seeded()
            try expectEqual(try await trips(store, \.traveller == data.ana.id), ["Lisbon Spring", "Porto Wine"])
            try expectEqual(try await trips(store, \.traveller == nil), ["São Paulo Business"])
            try expectEqual(try await people(store, .in(\.id, [data.ana.id, data.bruno.id])), ["Ana", "Bruno"])
        },
        ConformanceCheck(.queries, "integerConstantAgainstDoubleAttribute") { c in
            let (store, _) = try await c.seeded()
            let plan = FetchPlan(entity: "Trip", predicate: .compare("budget", .greater, .int(1000), []))
            let names = Set(try await store.read { try $0.fetch(plan) }.map { $0["name"] })
            try expectEqual(names, [.string("Lisbon Spring"), .string("São Paulo Business")])
        },
        ConformanceCheck(.queries, "queriesInsideATransactionSeeStagedChanges") { c in
            let (store, data) = try await c.seeded()
            let (seen, count) = try await store.transaction { tx in
                try tx.insert(Person(name: "Eva", age: 31))
                try tx.delete(Person.self, id: data.dario.id)
                return (Set(try tx.fetch(Query<Person>.where(\.age > 30)).map(\.name)), try tx.count(Query<Person>.all))
            }
            try expectEqual(seen, ["Ana", "Eva"])
            try expectEqual(count, 4)
        },
    ]

    static let text: [ConformanceCheck] = [
        ConformanceCheck(.queries, "containsIsCaseSensitiveByDefault") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await trips(store, .contains(\.name, "isbon")), ["Lisbon Spring", "lisbon winter"])
            try expectEqual(try await trips(store, .contains(\.name, "Lisbon")), ["Lisbon Spring"])
        },
        ConformanceCheck(.queries, "hasPrefixCaseInsensitive") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(
                try await trips(store, .hasPrefix(\.name, "LISBON", options: .caseInsensitive)),
                ["Lisbon Spring", "lisbon winter"])
            try expectEqual(try await trips(store, .hasPrefix(\.name, "lisbon")), ["lisbon winter"])
        },
        ConformanceCheck(.queries, "hasSuffix") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await trips(store, .hasSuffix(\.name, "Hike")), ["Açores Hike"])
            try expectEqual(try await trips(store, .hasSuffix(\.name, "hike")), [])
            try expectEqual(
                try await trips(store, .hasSuffix(\.name, "HIKE", options: .caseInsensitive)), ["Açores Hike"])
        },
        ConformanceCheck(.queries, "diacriticInsensitive") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await trips(store, .contains(\.name, "Acores")), [])
            try expectEqual(
                try await trips(store, .contains(\.name, "Acores", options: .diacriticInsensitive)), ["Açores Hike"])
            try expectEqual(
                try await trips(
                    store, .hasPrefix(\.name, "sao paulo", options: [.caseInsensitive, .diacriticInsensitive])),
                ["São Paulo Business"])
        },
        ConformanceCheck(.queries, "equalsWithTextOptions") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, .equals(\.name, "ANA", options: .caseInsensitive)), ["Ana"])
            try expectEqual(
                try await people(store, .equals(\.name, "Dario", options: .diacriticInsensitive)), ["Dário"])
            try expectEqual(try await people(store, \.name == "Dario"), [])
            try expectEqual(
                try await people(store, .in(\.name, ["ANA", "BRUNO"], options: .caseInsensitive)), ["Ana", "Bruno"])
        },
        ConformanceCheck(.queries, "textOperatorsNeverMatchNil") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, .contains(\.email, "@")), ["Ana", "Bruno", "Dário"])
            try expectEqual(try await people(store, !.contains(\.email, "@")), ["Clara"])
        },
    ]

    static let logic: [ConformanceCheck] = [
        ConformanceCheck(.queries, "isNilAndIsNotNil") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, .isNil(\.email)), ["Clara"])
            try expectEqual(try await people(store, .isNotNil(\.email)), ["Ana", "Bruno", "Dário"])
            try expectEqual(try await people(store, \.age == nil), ["Clara"])
            try expectEqual(try await people(store, \.rating != nil), ["Ana", "Clara", "Dário"])
        },
        ConformanceCheck(.queries, "andOrNot") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, \.age > 30 && \.isVerified == true), ["Ana"])
            try expectEqual(try await people(store, \.age < 30 || \.rating == nil), ["Bruno"])
            try expectEqual(
                try await people(store, .any([\.status == .gold, \.address.city == "Porto"])), ["Ana", "Bruno"])
            try expectEqual(try await people(store, .all([])), ["Ana", "Bruno", "Clara", "Dário"])
        },
        ConformanceCheck(.queries, "notIsTwoValuedOverNil") { c in
            let (store, _) = try await c.seeded()
            // age > 30 is false for a nil age, so its negation holds for Clara.
            try expectEqual(try await people(store, !(\.age > 30)), ["Bruno", "Clara"])
            try expectEqual(try await people(store, !(\.age != 34)), ["Ana"])
        },
    ]

    static let relationships: [ConformanceCheck] = [
        ConformanceCheck(.queries, "conditionAcrossToOne") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(
                try await trips(store, .related(\.traveller, where: \Person.name == "Ana")),
                ["Lisbon Spring", "Porto Wine"])
            try expectEqual(
                try await trips(store, .related(\.traveller, where: \Person.address.city == "Porto")), ["Açores Hike"])
        },
        ConformanceCheck(.queries, "negatedToOneConditionIncludesNilReference") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(
                try await trips(store, !.related(\.traveller, where: \Person.name == "Ana")),
                ["Açores Hike", "São Paulo Business", "lisbon winter"])
        },
        ConformanceCheck(.queries, "anyOverToMany") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await trips(store, .any(Trip.stops, where: \Stop.city == "Lisbon")), ["Lisbon Spring"])
            try expectEqual(
                try await trips(store, .any(Trip.stops, where: \Stop.nights >= 3)), ["Porto Wine", "Açores Hike"])
            try expectEqual(try await trips(store, .any(Trip.stops)), ["Lisbon Spring", "Porto Wine", "Açores Hike"])
        },
        ConformanceCheck(.queries, "noneOverToMany") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await trips(store, .none(Trip.stops)), ["São Paulo Business", "lisbon winter"])
            try expectEqual(
                try await trips(store, .none(Trip.stops, where: \Stop.city == "Lisbon")),
                ["Porto Wine", "Açores Hike", "São Paulo Business", "lisbon winter"])
        },
        ConformanceCheck(.queries, "anyOverManyToManyFromBothSides") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await trips(store, .any(Trip.tags, where: \Tag.label == "Food")), ["Porto Wine"])
            let tags = Set(
                try await store.repository(Tag.self).fetch(where: .any(Tag.trips, where: \Trip.isFavorite == true)).map(
                    \.id))
            try expectEqual(tags, ["beach", "city"])
        },
        ConformanceCheck(.queries, "anyAndNoneOverDerivedToMany") { c in
            let (store, _) = try await c.seeded()
            try expectEqual(try await people(store, .any(Person.trips, where: \Trip.budget > 1000)), ["Ana"])
            try expectEqual(try await people(store, .none(Person.trips)), ["Dário"])
        },
        ConformanceCheck(.queries, "nestedRelationshipConditions") { c in
            let (store, _) = try await c.seeded()
            let predicate: Filter<Person> = .any(Person.trips, where: .any(Trip.stops, where: \Stop.city == "Porto"))
            try expectEqual(try await people(store, predicate), ["Ana"])
            let agencyTrips: Filter<Trip> = .related(
                \.traveller, where: .any(Person.trips, where: \Trip.isFavorite == true))
            try expectEqual(try await trips(store, agencyTrips), ["Lisbon Spring", "Porto Wine", "Açores Hike"])
        },
    ]

}
