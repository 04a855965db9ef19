// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Queries article, "Sections".
import Foundation
import Strata

func tripsByDay(_ trips: some ModelReading<Trip>) async throws -> [(day: Date?, names: [String])] {
    let sectioned = try await trips.fetch(Query<Trip>.all.sorted(by: \.start), sectionedBy: .day(\.start))
    return sectioned.sections.map { ($0.key, $0.models.map(\.name)) }
}
