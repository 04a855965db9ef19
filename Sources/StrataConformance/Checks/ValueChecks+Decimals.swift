import Foundation
import Strata

/// Exact decimals: round trips of every shape across a reopen, numeric equality (1.10 is 1.1) and
/// order on indexed and plain attributes, exact sums and averages with overflow an error, NaN
/// refused, and unique constraints that treat equal numbers as equal.
extension ValueChecks {
    static func decimal(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))! }

    /// Numbers of every shape: tiny, huge, 38 significant digits, negative, and equal ones written
    /// differently.
    static let decimalTexts = [
        "0.1", "0.2", "0.3", "1.10", "1.1", "-1.5", "0", "12345678901234567890123456789012345678", "-0.000001",
        "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999", "1e-30", "123.456e20",
    ]

    static let decimals: [ConformanceCheck] = [
        ConformanceCheck(.values, "decimalsRoundTripExactlyAcrossAReopen", requires: [.reopen]) { c in
            var store = try await c.store()
            let numbers = decimalTexts.map(decimal)
            try await store.transaction { tx in
                for (index, number) in numbers.enumerated() {
                    try tx.insert(Sample(id: "d\(index)", price: number, cost: number))
                }
            }
            store = try await c.reopen(store)
            let samples = try await store.repository(Sample.self).fetch()
            for (index, number) in numbers.enumerated() {
                let sample = try expectNotNil(samples.first { $0.id == "d\(index)" }, "d\(index)")
                try expectEqual(sample.price, number, "indexed \(decimalTexts[index])")
                try expectEqual(sample.cost, number, "plain \(decimalTexts[index])")
                try expectEqual(sample.price?.description, number.description, "same digits as \(decimalTexts[index])")
            }
            try expectEqual(decimal("0.1") + decimal("0.2"), decimal("0.3"), "money arithmetic is exact")
        },
        ConformanceCheck(.values, "decimalsCompareAndSortNumerically") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            let numbers = decimalTexts.map(decimal)
            try await store.transaction { tx in
                for (index, number) in numbers.enumerated() {
                    try tx.insert(Sample(id: "d\(index)", price: number, cost: number))
                }
                try tx.insert(Sample(id: "none"))
            }
            let ascending = ([nil] + numbers.sorted()).map { $0 }
            for (keyPath, name) in [(\Sample.price, "price"), (\Sample.cost, "cost")] {
                let sorted = try await samples.fetch(Query<Sample>.all.sorted(by: keyPath))
                try expectEqual(sorted.map { $0[keyPath: keyPath] }, ascending, "\(name) ascending, nil first")
                let equal = try await samples.fetch(where: keyPath == decimal("1.1"))
                try expectEqual(Set(equal.map(\.id)), ["d3", "d4"], "\(name) == 1.1 finds 1.10 too")
                let above = try await samples.count(where: keyPath > decimal("0.2"))
                try expectEqual(above, numbers.filter { $0 > decimal("0.2") }.count, "\(name) > 0.2")
                let range = try await samples.count(where: keyPath >= decimal("-1.5") && keyPath <= decimal("0.3"))
                try expectEqual(
                    range, numbers.filter { $0 >= decimal("-1.5") && $0 <= decimal("0.3") }.count, "\(name) in a range")
                let listed = try await samples.count(
                    where: .in(keyPath, [decimal("0.30"), decimal("-0.0000010"), decimal("7")]))
                try expectEqual(listed, 2, "\(name) in a list of equal numbers written otherwise")
            }
        },
        ConformanceCheck(.values, "decimalSumsAreExactAndOverflowIsAnError") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            try await store.transaction { tx in
                for index in 0..<10 {
                    try tx.insert(Sample(id: "t\(index)", price: decimal("0.1"), cost: decimal("0.1")))
                }
                try tx.insert(Sample(id: "odd", price: decimal("-0.05")))
            }
            let (sum, average, least, most) = try await samples.aggregate(
                .sum(\.price), .average(\.price), .min(\.price), .max(\.price))
            try expectEqual(sum, decimal("0.95"), "ten tenths and a minus five hundredths, exactly")
            try expectEqual(average, decimal("0.95") / 11, "the average of the exact sum")
            try expectEqual(least, decimal("-0.05"))
            try expectEqual(most, decimal("0.1"))
            let (plain, _) = try await samples.aggregate(.sum(\.cost), .count, where: \.cost != nil)
            try expectEqual(plain, decimal("1"), "0.1 ten times is 1")
            // 1.5 and 10^38 - 1 are 10^38 + 0.5: 40 significant digits.
            try await samples.insert(Sample(id: "half", cost: decimal("0.5")))
            try await samples.insert(Sample(id: "huge", cost: decimal("99999999999999999999999999999999999999")))
            try await expectError(.invalidQuery, entity: "Sample", property: "cost") {
                _ = try await samples.aggregate(.sum(\.cost), .count)
            }
        },
        ConformanceCheck(.values, "aDecimalSumPastThirtyEightSignificantDigitsIsRefusedNeverRounded") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            let nines = decimal(String(repeating: "9", count: 38))
            // Foundation's Decimal holds 39 digits of these sums (and rounds the fourth in silence).
            for count in 1...4 {
                try await samples.insert(Sample(id: "n\(count)", cost: nines))
                guard count > 1 else { continue }
                try await expectError(.invalidQuery, entity: "Sample", property: "cost") {
                    _ = try await samples.aggregate(.sum(\.cost), .count)
                }
                try await expectError(.invalidQuery, entity: "Sample", property: "cost") {
                    _ = try await samples.aggregate(.average(\.cost), .count)
                }
            }
            for id in ["n2", "n3", "n4"] { try await samples.delete(id) }
            // 10^38 - 1 and 1 are 10^38 exactly (one significant digit); with minus 10^38 + 1 and 5,
            // 5 — in whatever order a backend reads them.
            try await samples.insert(Sample(id: "one", cost: decimal("1")))
            let (power, _) = try await samples.aggregate(.sum(\.cost), .count)
            try expectEqual(power, decimal("1e38"), "10^38 - 1 and 1 are 10^38, exactly")
            try await samples.insert(Sample(id: "minus", cost: -nines - 1))
            try await samples.insert(Sample(id: "five", cost: decimal("5")))
            let (five, _) = try await samples.aggregate(.sum(\.cost), .count)
            try expectEqual(five, decimal("5"), "what cancels is exact")
        },
        ConformanceCheck(.values, "decimalNaNIsRefusedAndUniqueDecimalsAreEqualNumbers") { c in
            let store = try await c.store()
            let samples = store.repository(Sample.self)
            try await expectRejected(store, .validationFailed, entity: "Sample", property: "price") {
                try await samples.insert(Sample(id: "n", price: .nan))
            }
            try await expectError(.validationFailed, entity: "Sample", property: "price") {
                _ = try await samples.count(where: \Sample.price > Decimal.nan)
            }
            try await samples.insert(Sample(id: "a", fee: decimal("2.50")))
            try await expectRejected(store, .uniqueViolation, entity: "Sample") {
                try await samples.insert(Sample(id: "b", fee: decimal("2.5")))
            }
            try await samples.insert(Sample(id: "c", fee: decimal("2.51")))
            try expectEqual(try await samples.count(), 2, "2.50 and 2.5 are one fee; 2.51 another")
        },
    ]
}
