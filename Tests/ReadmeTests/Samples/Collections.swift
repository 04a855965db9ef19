// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Modelling article, "Collections and documents".
import Foundation
import Strata

struct Preferences: DocumentAttribute {
    var theme: String
    var fontSize: Int
}

struct Customer: PersistentModel {
    var id = UUID()
    var name: String
    var tags: [String] = []
    var phones: Set<String> = []
    var limits: [String: Int] = [:]
    var preferences: Preferences?

    static let entity = Entity<Customer>("Customer", [
        .attribute(\.name),
        .attribute(\.tags, indexed: true),
        .attribute(\.phones),
        .attribute(\.limits),
        .attribute(\.preferences),
    ])
}

func darkThemedVIPs(_ customers: some ModelReading<Customer>) async throws -> [Customer] {
    try await customers.fetch(
        where: .contains(\.tags, element: "vip") && \.preferences?.theme == "dark" && .count(\.phones, .greaterOrEqual, 1))
}
