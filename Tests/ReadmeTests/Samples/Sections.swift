// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Queries article, "Sections".
import Foundation
import Strata

func tripsByDay(_ trips: some ModelReading<Trip>) async throws -> [(day: Date?, names: [String])] {
    let sectioned = try await trips.fetch(Query<Trip>.all.sorted(by: \.start), sectionedBy: .day(\.start))
    return sectioned.sections.map { ($0.key, $0.models.map(\.name)) }
}

func liveTravellers(_ store: Store, render: ([(name: String?, trips: Int)]) -> Void) async throws {
    let byTraveller = SectionKey<Trip, String>.related(\.traveller, \Person.name)
    for try await value in store.observe(Query<Trip>.all.sorted(by: \.start), sectionedBy: byTraveller) {
        render(value.sections.map { ($0.key, $0.count) })
        for move in value.diff.movedRows where move.from.section != move.to.section {
            print("a trip moved from section \(move.from.section) to \(move.to.section)")
        }
    }
}
