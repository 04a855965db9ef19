import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// Sections by an enum, in the order the enum declares its cases — `regular, silver, gold`, not
/// the raw values' alphabetical `gold, regular, silver` — for any mix of people.
@Suite struct SectionCasesTests {
    @Test func sectionsByAnEnumFollowItsDeclarationOrder() async throws {
        var system = SystemRandomNumberGenerator()
        let seed = system.next()
        print("sectionsByAnEnumFollowItsDeclarationOrder: seed \(seed)")
        var random = SeededRandom(seed: seed)
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let people = store.repository(Person.self)
        var expected: [MemberStatus: Int] = [:]
        for index in 0..<random.int(1...60) {
            let status = random.pick(MemberStatus.allCases)
            expected[status, default: 0] += 1
            try await people.insert(Person(name: "P\(index)", status: status))
        }
        let sectioned = try await people.fetch(Query<Person>.all.sorted(by: \.name), sectionedBy: .cases(\.status))
        let keys = sectioned.sections.compactMap { $0.key?.value }
        #expect(keys == MemberStatus.allCases.filter { expected[$0] != nil }, "seed \(seed)")
        for section in sectioned.sections {
            let status = try #require(section.key?.value)
            #expect(section.models.count == expected[status], "\(status), seed \(seed)")
            #expect(section.models.allSatisfy { $0.status == status }, "\(status), seed \(seed)")
            #expect(section.models.map(\.name) == section.models.map(\.name).sorted(), "the query's order within")
        }
        #expect(DeclarationOrder(MemberStatus.gold) > DeclarationOrder(MemberStatus.regular))
    }
}
