import Foundation
import Strata

/// Pages sorted by one attribute whose greatest and least values are shared by several records,
/// both directions, indexed and plain, every page size: ties keep ID order and no record is lost
/// or repeated at a page or key boundary (backends that walk an index meet them there).
extension QueryChecks {
    static let ties: [ConformanceCheck] = [
        ConformanceCheck(.queries, "pagesKeepEveryRecordWhereValuesTieAtBothEnds") { c in
            let store = try await c.store()
            let counts: [Int?] = [5, 5, 5, 1, 1, nil, nil, 3, 5, 1]
            let day: @Sendable (Int) -> Date = { Date(timeIntervalSinceReferenceDate: Double($0) * 86_400) }
            try await store.transaction { tx in
                for (index, count) in counts.enumerated() {
                    try tx.insert(Sample(id: "t\(index)", number: count.map(Double.init), amount: count.map(Double.init),
                                         when: count.map(day), moment: count.map(day), count: count))
                }
            }
            let ids = counts.indices.map { "t\($0)" }
            for property in ["count", "number", "amount", "when", "moment"] {
                for ascending in [true, false] {
                    // The contract's order: nil first ascending, last descending; ties by ID ascending.
                    let expected = ids.indices.sorted { a, b in
                        switch (counts[a], counts[b]) {
                        case (nil, nil): return ids[a] < ids[b]
                        case (nil, _): return ascending
                        case (_, nil): return !ascending
                        case (let x?, let y?): return x == y ? ids[a] < ids[b] : (ascending ? x < y : x > y)
                        }
                    }.map { ids[$0] }
                    for size in 1...4 {
                        var paged: [String] = []
                        for offset in stride(from: 0, to: ids.count, by: size) {
                            let page = try await store.read {
                                try $0.fetch(FetchPlan(entity: "Sample", sort: [SortKey(property, ascending: ascending)], limit: size, offset: offset))
                            }
                            paged += page.map(\.id.description)
                        }
                        try expectEqual(paged, expected, "\(property) \(ascending ? "ascending" : "descending") in pages of \(size)")
                    }
                }
            }
        },
    ]
}
