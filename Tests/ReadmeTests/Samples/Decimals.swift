// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Modelling article, "Exact decimals".
import Foundation
import Strata

struct Invoice: PersistentModel {
    var id = UUID()
    var total: Decimal
    var paid: Decimal?

    static let entity = Entity<Invoice>("Invoice", [
        .attribute(\.total, indexed: true, rules: [.range(Decimal(0)...)]),
        .attribute(\.paid),
    ])
}

func outstanding(_ invoices: some ModelReading<Invoice>) async throws -> Decimal {
    let (total, paid) = try await invoices.aggregate(.sum(\.total), .sum(\.paid))
    return total - paid
}
