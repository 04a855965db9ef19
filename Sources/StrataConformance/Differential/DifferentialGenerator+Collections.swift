import Foundation
import Strata

/// Arrays, sets, dictionaries and documents for the differential runs: values with duplicates,
/// text in both normal forms, non-finite doubles and empty collections; and contains, contains-any,
/// count and document-path conditions over them.
extension DifferentialGenerator {
    static let elementTexts = ["swift", "linux", "é", "e\u{0301}", "", "Zoë"]
    static let documents = [
        #"{"city":"Lisbon","floor":2}"#, #"{"city":"Porto","contact":{"email":"a@x.pt","verified":true}}"#,
        #"{"floor":2.0,"city":"Sa\u0303o"}"#, #"{"city":null,"contact":{"email":"b@x.pt"}}"#, #"{}"#,
        #"{"city":"São","contact":{"verified":false}}"#,
    ]

    mutating func textList() -> Value {
        if random.chance(0.2) { return .null }
        return .array((0..<random.int(0...4)).map { _ in .string(random.pick(Self.elementTexts)) })
    }

    mutating func scoreList() -> Value {
        if random.chance(0.2) { return .null }
        return .array((0..<random.int(0...3)).map { _ in .double(random.pick(Self.numbers)) })
    }

    mutating func countMap() -> Value {
        if random.chance(0.2) { return .null }
        var entries: [String: Value] = [:]
        for _ in 0..<random.int(0...3) { entries[random.pick(["a", "b", "é"])] = .int(Int64(random.int(-2...2))) }
        return .dictionary(entries)
    }

    mutating func profile() -> Value { random.chance(0.2) ? .null : .document(random.pick(Self.documents)) }

    /// The collection properties of a `Sample` record.
    mutating func collectionValues() -> [String: Value] {
        ["tags": textList(), "scores": scoreList(), "labels": textList(), "counts": countMap(), "profile": profile()]
    }

    /// One collection property of `Sample`, as an update.
    mutating func collectionChange() -> (String, Value) {
        random.pick([
            ("tags", textList()), ("scores", scoreList()), ("labels", textList()), ("counts", countMap()),
            ("profile", profile()),
        ])
    }

    /// A condition over `Sample`'s collections or document.
    mutating func collectionPredicate() -> FilterExpression {
        let text = Value.string(random.pick(Self.elementTexts))
        switch random.int(0...6) {
        case 0: return .elements(random.pick(["tags", "labels"]), .contains(text))
        case 1:
            let list = (0..<random.int(0...2)).map { _ in Value.string(random.pick(Self.elementTexts)) }
            return .elements(random.pick(["tags", "labels"]), .containsAny(list))
        case 2: return .elements("scores", .contains(.double(random.pick(Self.numbers))))
        case 3: return .elements("counts", .contains(.string(random.pick(["a", "b", "é", "z"]))))
        case 4:
            let op = random.pick([ComparisonOperator.equal, .notEqual, .less, .greaterOrEqual])
            return .elements(random.pick(["tags", "scores", "labels", "counts"]), .count(op, random.int(0...3)))
        default:
            let (path, constant): ([String], Value) = random.pick([
                (["city"], .string(random.pick(["Lisbon", "São", "Porto"]))), (["city"], .null),
                (["floor"], random.chance(0.5) ? .int(2) : .double(2)), (["contact", "email"], .string("a@x.pt")),
                (["contact", "verified"], .bool(random.chance(0.5))), (["contact"], .string("x")),
            ])
            return .documentPath("profile", path, random.pick([.equal, .notEqual]), constant)
        }
    }
}
