import Foundation
import Strata

/// The value contract: one rule on every backend, identical answers — text in NFC ordered by
/// Unicode scalars, NaN refused, ±infinity stored and ordered, dates bit-exact, one string ID
/// limit, indexed text of any length.
enum ValueChecks {
    /// "É" as one scalar and as "E" + U+0301.
    static let composed = "\u{00C9}cole"
    static let decomposed = "E\u{0301}cole"

    static func scalars(_ text: String?) -> [UInt32] { text.map { $0.unicodeScalars.map(\.value) } ?? [] }

    /// The contract's text order: Unicode scalar values of the NFC form.
    static func scalarOrder(_ a: String, _ b: String) -> Bool {
        Array(a.precomposedStringWithCanonicalMapping.utf8).lexicographicallyPrecedes(
            b.precomposedStringWithCanonicalMapping.utf8)
    }

    static let mixedText = [
        "Zoë", "Émile", "E\u{0301}mil", "Eve", "éclair", "e\u{0301}cole", "ábaco", "Ana", "a", "Ω", "ñandú",
        "n\u{0303}u",
        "Ångström", "A\u{030A}sa", "zebra", "Ærø", "straße", "Straße", "中文", "😀", "e", "é", "f",
    ]

    static var all: [ConformanceCheck] { text + basics + timestamps + decimals + collections }

    static let basics: [ConformanceCheck] = [
        ConformanceCheck(.values, "nanIsRejectedAsValueAndAsQueryConstant") { c in
            let (store, data) = try await c.seeded()
            try await expectRejected(store, .validationFailed, entity: "Sample", property: "number") {
                try await store.repository(Sample.self).insert(Sample(id: "n", number: .nan))
            }
            try await expectRejected(store, .validationFailed, entity: "Sample", property: "amount") {
                try await store.transaction { tx in try tx.insert(Sample(id: "n", amount: -.nan)) }
            }
            var trip = data.lisbonSpring
            trip.budget = .signalingNaN
            try await expectRejected(store, .validationFailed, entity: "Trip", property: "budget") {
                try await store.repository(Trip.self).update(trip)
            }
            let context = store.makeContext()
            try await context.insert(Sample(id: "n", number: .nan))
            try await expectRejected(store, .validationFailed, entity: "Sample", property: "number") {
                try await context.save()
            }
            try await expectError(.validationFailed, entity: "Sample", property: "number") {
                _ = try await store.repository(Sample.self).count(where: \Sample.number > Double.nan)
            }
        },
        ConformanceCheck(.values, "infinitiesAreStoredAndOrdered", requires: [.reopen]) { c in
            var store = try await c.store()
            let numbers: [Double] = [.infinity, -1.5, 0, -.infinity, 1e308, -1e-308, .greatestFiniteMagnitude, 42]
            try await store.transaction { tx in
                for (index, number) in numbers.enumerated() {
                    try tx.insert(Sample(id: "n\(index)", number: number, amount: number))
                }
                try tx.insert(Sample(id: "nil"))
            }
            store = try await c.reopen(store)
            let samples = store.repository(Sample.self)
            for property in ["number", "amount"] {
                let sorted = try await store.read {
                    try $0.fetch(FetchPlan(entity: "Sample", sort: [SortKey(property)]))
                }
                try expectEqual(
                    sorted.map { $0[property] }, [.null] + numbers.sorted().map(Value.double),
                    "\(property) ascending, nil first")
                let positive = try await store.read {
                    try $0.count(FetchPlan(entity: "Sample", predicate: .compare(property, .greater, .double(0), [])))
                }
                try expectEqual(positive, numbers.filter { $0 > 0 }.count, "\(property) > 0")
                let infinite = try await store.read {
                    try $0.fetch(
                        FetchPlan(entity: "Sample", predicate: .compare(property, .equal, .double(-.infinity), [])))
                }
                try expectEqual(infinite.map(\.id.description), ["n3"], "\(property) == -infinity")
                let between = try await store.read {
                    try $0.count(
                        FetchPlan(entity: "Sample", predicate: .between(property, .double(-.infinity), .double(0))))
                }
                try expectEqual(between, 4, "\(property) between -infinity and 0")
            }
            try expectEqual(try await samples.fetch("n0")?.number, .infinity)
        },
        ConformanceCheck(.values, "doublesOfEveryBitPatternRoundTripExactly", requires: [.reopen]) { c in
            // Random bit patterns (every exponent, subnormals included) and decimal-looking values
            // a text format must write and read back exactly.
            let seed = UInt64(Date().timeIntervalSince1970 * 1000)
            var random = SeededRandom(seed: seed)
            var generated: [Double] = (0..<400).compactMap { _ in
                let number = Double(bitPattern: random.next())
                return number.isFinite ? number : nil
            }
            generated += (0..<400).map { _ in Double(random.below(10_000_000)) / 100 - 50_000 }
            let numbers =
                generated + [
                    -0.13000000000000075, 123.45678901234568, .leastNonzeroMagnitude, -2.2250738585072014e-308,
                    .greatestFiniteMagnitude,
                ]
            var store = try await c.store()
            try await store.transaction { tx in
                for (index, number) in numbers.enumerated() {
                    try tx.insert(Sample(id: "x\(index)", number: number, amount: number))
                }
            }
            for round in ["before reopen", "after reopen"] {
                if round == "after reopen" { store = try await c.reopen(store) }
                let stored = try await store.read { try $0.fetch(FetchPlan(entity: "Sample")) }
                let byID = Dictionary(stored.map { ($0.id.description, $0) }, uniquingKeysWith: { a, _ in a })
                for (index, number) in numbers.enumerated() {
                    for property in ["number", "amount"] {
                        guard case .double(let got) = byID["x\(index)"]?[property] else {
                            throw ConformanceFailure(
                                "seed \(seed): x\(index).\(property) \(round) is missing", fileID: #fileID,
                                filePath: #filePath, line: #line)
                        }
                        try expectEqual(
                            got.bitPattern, (number == 0 ? 0 : number).bitPattern,
                            "seed \(seed): \(number) \(round) came back as \(got)")
                    }
                }
            }
        },
        ConformanceCheck(.values, "datesRoundTripBitExactly", requires: [.reopen]) { c in
            var store = try await c.store()
            let seconds: [Double] = [
                1.0 / 3.0, 1e-7, 800_000_000.123_456_7, -1e-9, 0, -0.0, 1_767_225_600.000_001, -978_307_200.5,
                Date.distantPast.timeIntervalSinceReferenceDate, Date.distantFuture.timeIntervalSinceReferenceDate,
                0.1 + 0.2,
                -70_000_000_000, 400_000_000_000.25,  // years before 1 and after 9999
            ]
            let dates = seconds.map(Date.init(timeIntervalSinceReferenceDate:))
            // −0 is stored as 0 (they are equal; one bit pattern on every backend).
            let exact = seconds.map { $0 == 0 ? 0 : $0 }
            try await store.transaction { tx in
                for (index, date) in dates.enumerated() {
                    try tx.insert(Sample(id: "d\(index)", when: date, moment: date))
                }
            }
            for round in ["before reopen", "after reopen"] {
                if round == "after reopen" { store = try await c.reopen(store) }
                for (index, date) in dates.enumerated() {
                    let sample = try expectNotNil(try await store.repository(Sample.self).fetch("d\(index)"))
                    for stored in [sample.when, sample.moment] {
                        try expectEqual(
                            stored?.timeIntervalSinceReferenceDate.bitPattern, exact[index].bitPattern,
                            "\(seconds[index]) \(round): got \(stored?.timeIntervalSinceReferenceDate ?? .nan)")
                    }
                    for property in ["when", "moment"] {
                        let found = try await store.read {
                            try $0.count(
                                FetchPlan(entity: "Sample", predicate: .compare(property, .equal, .date(date), [])))
                        }
                        try expectEqual(
                            found, seconds.filter { $0 == seconds[index] }.count,
                            "\(property) == \(seconds[index]) \(round)")
                    }
                }
            }
            try await expectRejected(store, .validationFailed, entity: "Sample", property: "when") {
                try await store.repository(Sample.self).insert(
                    Sample(id: "bad", when: Date(timeIntervalSinceReferenceDate: .infinity)))
            }
        },
        ConformanceCheck(.values, "stringIDsHaveOneLengthLimit", requires: [.reopen]) { c in
            var store = try await c.store()
            let longest = String(repeating: "€", count: RecordID.maximumStringIDLength / 3)  // 3 bytes each
            let tooLong = String(repeating: "x", count: RecordID.maximumStringIDLength + 1)
            let huge = String(repeating: "y", count: 4_000)
            let trip = Trip(name: "T", start: TravelDomain.day(1))
            try await store.repository(Tag.self).insert(Tag(id: longest, label: "longest"))
            try await store.repository(Trip.self).insert(trip)
            try await store.repository(Trip.self).link(Trip.tags, from: trip.id, to: longest)
            store = try await c.reopen(store)
            try expectEqual(try await store.repository(Tag.self).fetch(longest)?.label, "longest")
            try expectEqual(try await store.repository(Trip.self).related(Trip.tags, of: trip.id).map(\.id), [longest])
            // The empty ID is refused like an over-long one, and every operation naming either
            // answers with the same typed error on every backend (never a key-size error).
            for id in ["", tooLong, huge] {
                try await expectRejected(store, .validationFailed, entity: "Tag", property: "id") {
                    try await store.repository(Tag.self).insert(Tag(id: id, label: "too long"))
                }
                try await expectRejected(store, .validationFailed, entity: "Tag", property: "id") {
                    try await store.repository(Tag.self).update(Tag(id: id, label: "absent"))
                }
                let found = try await store.backend.read {
                    try $0.records("Tag", ids: [.string(id), .string(longest)])
                }
                try expectEqual(found.count, 1)
                try await expectRejected(store, .validationFailed, entity: "Sample", property: "id") {
                    let context = store.makeContext()
                    try await context.insert(Sample(id: id))
                    try await context.save()
                }
                try expectEqual(try await store.repository(Tag.self).fetch(id), nil)
                try expectEqual(try await store.read { try $0.record("Tag", id: .string(id)) }, nil)
                try expectEqual(try await store.repository(Tag.self).count(where: \Tag.id == id), 0)
                try expectEqual(try await store.repository(Tag.self).count(where: .in(\Tag.id, [id, longest])), 1)
                try await expectRejected(store, .notFound, entity: "Tag") {
                    try await store.repository(Tag.self).delete(id)
                }
                try await expectRejected(store, .invalidReference, entity: "Trip", property: "tags") {
                    try await store.repository(Trip.self).link(Trip.tags, from: trip.id, to: id)
                }
                try await expectRejected(store, .invalidReference, entity: "Node", property: "next") {
                    try await store.transaction { tx in
                        try tx.insert(
                            Record(entity: "Node", id: .string("n"), values: ["label": "n", "next": .string(id)]))
                    }
                }
            }
        },
        ConformanceCheck(.values, "emptyTextAndEmptyBytesAreValuesNotNil", requires: [.reopen]) { c in
            var store = try await c.store()
            let person = Person(name: "E", address: Address(city: "X", street: ""), avatar: Data())
            let photo = Photo(caption: "", bytes: Data())
            try await store.repository(Person.self).insert(person)
            try await store.repository(Photo.self).insert(photo)
            try await store.repository(Sample.self).insert(Sample(id: "e", key: "", text: ""))
            store = try await c.reopen(store)
            try expectEqual(try await store.repository(Person.self).fetch(person.id), person)
            try expectEqual(try await store.repository(Photo.self).fetch(photo.id), photo)
            try expectEqual(try await store.repository(Sample.self).fetch("e")?.text, "")
            for property in ["key", "text"] {
                try expectEqual(
                    try await store.read { try $0.count(FetchPlan(entity: "Sample", predicate: .isNil(property))) }, 0,
                    "\(property): empty is not nil")
                try expectEqual(
                    try await store.read {
                        try $0.count(FetchPlan(entity: "Sample", predicate: .compare(property, .equal, "", [])))
                    }, 1)
            }
            try expectEqual(try await store.repository(Person.self).count(where: .isNil(\Person.avatar)), 0)
        },
        ConformanceCheck(.values, "integerExtremesRoundTripAndOrder", requires: [.reopen]) { c in
            var store = try await c.store()
            let numbers: [Int] = [.min, -1, 0, 1, .max, .min + 1, .max - 1]
            try await store.transaction { tx in
                for (index, number) in numbers.enumerated() { try tx.insert(Sample(id: "i\(index)", count: number)) }
            }
            store = try await c.reopen(store)
            for (index, number) in numbers.enumerated() {
                try expectEqual(try await store.repository(Sample.self).fetch("i\(index)")?.count, number)
                try expectEqual(
                    try await store.repository(Sample.self).fetch(where: \Sample.count == number).map(\.id),
                    ["i\(index)"])
            }
            let sorted = try await store.repository(Sample.self).fetch(Query<Sample>.all.sorted(by: \.count))
            try expectEqual(sorted.compactMap(\.count), numbers.sorted())
            try expectEqual(try await store.repository(Sample.self).count(where: \Sample.count < -1), 2)
            try expectEqual(
                try await store.repository(Sample.self).count(where: .between(\Sample.count, Int.min, Int.min + 1)), 2)
        },
        ConformanceCheck(.values, "indexedTextOfAnyLengthIsAnsweredExactly") { c in
            let store = try await c.store()
            let prefix = String(repeating: "ab", count: 600)  // 1,200 bytes shared
            let texts = [prefix + "1", prefix + "2", prefix, prefix + "é", String(repeating: "é", count: 5_000)]
            try await store.transaction { tx in
                for (index, text) in texts.enumerated() {
                    try tx.insert(Sample(id: "t\(index)", key: text, text: text, code: text))
                }
            }
            let samples = store.repository(Sample.self)
            for (index, text) in texts.enumerated() {
                try expectEqual(
                    try await samples.fetch(where: \Sample.key == text).map(\.id), ["t\(index)"],
                    "indexed == on text \(index)")
                try expectEqual(
                    try await samples.fetch(where: \Sample.code == text).map(\.id), ["t\(index)"],
                    "unique == on text \(index)")
                try expectEqual(
                    try await samples.fetch(where: \Sample.text == text).map(\.id), ["t\(index)"],
                    "plain == on text \(index)")
            }
            try expectEqual(try await samples.count(where: .in(\Sample.key, [texts[0], texts[3], "nope"])), 2)
            try expectEqual(
                try await samples.count(where: \Sample.key > prefix), texts.filter { scalarOrder(prefix, $0) }.count)
            let sorted = try await samples.fetch(Query<Sample>.all.sorted(by: \.key))
            try expectEqual(
                sorted.map(\.id), texts.indices.sorted { scalarOrder(texts[$0], texts[$1]) }.map { "t\($0)" })
            try await expectRejected(store, .uniqueViolation, entity: "Sample", property: "code") {
                try await samples.insert(Sample(id: "dup", code: texts[1]))
            }
        },
    ]
}

extension Value {
    /// The text, when this is a string.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
