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
                    try tx.insert(
                        Sample(
                            id: "t\(index)", number: count.map(Double.init), amount: count.map(Double.init),
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
                                try $0.fetch(
                                    FetchPlan(
                                        entity: "Sample", sort: [SortKey(property, ascending: ascending)], limit: size,
                                        offset: offset))
                            }
                            paged += page.map(\.id.description)
                        }
                        try expectEqual(
                            paged, expected, "\(property) \(ascending ? "ascending" : "descending") in pages of \(size)"
                        )
                    }
                }
            }
        },
        ConformanceCheck(.queries, "rangesWithSortAndPagesOverAnIndexedAttribute") { c in
            let store = try await c.store()
            let values: [Int?] = [-3, -2, -1, 0, 1, 2, 3, nil, 1, 1, -3, 3]
            try await store.transaction { tx in
                for (index, value) in values.enumerated() {
                    try tx.insert(
                        Sample(id: String(format: "r%02d", index), number: value.map(Double.init), count: value))
                }
            }
            let ranges: [(String, FilterExpression, (Int) -> Bool)] = [
                (">= -1", .compare("count", .greaterOrEqual, -1, []), { $0 >= -1 }),
                ("> 1", .compare("count", .greater, 1, []), { $0 > 1 }),
                ("< 1", .compare("count", .less, 1, []), { $0 < 1 }),
                ("<= -3", .compare("count", .lessOrEqual, -3, []), { $0 <= -3 }),
                ("== 1", .compare("count", .equal, 1, []), { $0 == 1 }),
                ("between -2 and 2", .between("count", -2, 2), { (-2...2).contains($0) }),
                ("between 2 and -2", .between("count", 2, -2), { _ in false }),
                ("> 10", .compare("count", .greater, 10, []), { $0 > 10 }),
                ("< -10", .compare("count", .less, -10, []), { $0 < -10 }),
                (
                    "> -2 and < 3 and != 1",
                    .and([
                        .compare("count", .greater, -2, []), .compare("count", .less, 3, []),
                        .compare("count", .notEqual, 1, []),
                    ]),
                    { $0 > -2 && $0 < 3 && $0 != 1 }
                ),
            ]
            for (name, predicate, holds) in ranges {
                for property in ["count", "number"] {
                    let condition = property == "count" ? predicate : predicate.renamed("count", to: "number")
                    for ascending in [true, false] {
                        let expected = values.indices.filter { values[$0].map(holds) ?? false }.sorted { a, b in
                            values[a] == values[b]
                                ? a < b : (ascending ? values[a]! < values[b]! : values[a]! > values[b]!)
                        }.map { String(format: "r%02d", $0) }
                        for size in [1, 2, 5] {
                            var paged: [String] = []
                            for offset in stride(from: 0, to: max(1, expected.count), by: size) {
                                paged += try await store.read {
                                    try $0.fetch(
                                        FetchPlan(
                                            entity: "Sample", predicate: condition,
                                            sort: [SortKey(property, ascending: ascending)], limit: size, offset: offset
                                        ))
                                }.map(\.id.description)
                            }
                            try expectEqual(
                                paged, expected,
                                "\(property) \(name) \(ascending ? "ascending" : "descending") in pages of \(size)")
                        }
                    }
                }
            }
        },
    ]
}

extension FilterExpression {
    /// The same condition over another property (the suite reuses range cases across attributes).
    func renamed(_ old: String, to new: String) -> FilterExpression {
        switch self {
        case .compare(let property, let op, let value, let options):
            .compare(property == old ? new : property, op, value, options)
        case .between(let property, let low, let high): .between(property == old ? new : property, low, high)
        case .and(let parts): .and(parts.map { $0.renamed(old, to: new) })
        default: self
        }
    }
}
