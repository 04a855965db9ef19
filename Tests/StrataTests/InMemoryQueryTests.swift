import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// `Query.apply(to:schema:)` answers as a store does, so a test double built on it answers a
/// service's lookups correctly: compared with a store holding the same models.
@Suite struct InMemoryQueryTests {
    static let queries: [(String, Query<Person>)] = [
        ("everyone by name", Query<Person>.all.sorted(by: \.name)),
        ("an equality", Query<Person>.where(\.name == "Ana")),
        ("a range with nil ages", Query<Person>.where(\.age >= 30).sorted(by: \.age, .descending)),
        ("case-insensitive prefix", Query<Person>.where(.hasPrefix(\.name, "b", options: .caseInsensitive))),
        ("a decomposed constant", Query<Person>.where(\.name == "Caf\u{65}\u{301}")),
        ("or and not", Query<Person>.where(.not(\.name == "Ana") && (\.age < 40 || \.age == nil))),
        ("a page", Query<Person>.all.sorted(by: \.name).offset(1).limit(2)),
    ]

    @Test(arguments: queries.indices)
    func aQueryAppliedToModelsAnswersAsAStore(_ index: Int) async throws {
        let (label, query) = Self.queries[index]
        let schema = try TravelDomain.schema()
        let store = Store(backend: InMemoryBackend(schema: schema))
        _ = try await TravelData.seed(store)
        try await store.repository(Person.self).insert(Person(name: "Caf\u{E9}"))
        let people = try await store.repository(Person.self).fetch()
        let expected = try await store.repository(Person.self).fetch(query)
        #expect(try query.apply(to: people.shuffled(), schema: schema) == expected, "\(label)")
        #expect(!expected.isEmpty || label == "none", "\(label) matches something")
    }

    @Test func aFilterMatchesOneModel() throws {
        let schema = try TravelDomain.schema()
        let ana = Person(name: "Ana", age: 34)
        let older: Filter<Person> = \.age > 30
        let bruno: Filter<Person> = \.name == "Bruno"
        #expect(try older.matches(ana, schema: schema))
        #expect(try !bruno.matches(ana, schema: schema))
    }

    @Test func aFilterOverARelationshipNeedsAStore() throws {
        let schema = try TravelDomain.schema()
        let trip = Trip(name: "Lisbon", start: Date(timeIntervalSinceReferenceDate: 0), traveller: UUID())
        let error = try #require(throws: StrataError.self) {
            try Query<Trip>.where(.related(\.traveller, where: \Person.name == "Ana")).apply(to: [trip], schema: schema)
        }
        #expect(error.code == .invalidQuery && error.message.contains("memory: store"), "\(error)")
    }
}
