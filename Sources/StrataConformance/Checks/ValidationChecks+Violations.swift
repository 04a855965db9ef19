import Foundation
import Strata

/// A broken rule reaches a service structured (`StrataError.violation`) with a client message that
/// says what is wrong without repeating the value.
extension ValidationChecks {
    static let violations: [ConformanceCheck] = [
        ConformanceCheck(.validation, "aBrokenRuleIsCarriedStructurallyWithAClientMessage") { c in
            let store = try await c.store()
            let people = store.repository(Person.self)
            let cases: [(Person, RuleViolation.Kind, String)] = [
                (
                    Person(name: String(repeating: "x", count: 81)), .tooLong(maximum: 80),
                    "must be at most 80 characters"
                ),
                (Person(name: ""), .tooShort(minimum: 1), "must be at least 1 character"),
                (Person(name: "Old", age: 151), .aboveMaximum(.int(150)), "must be at most 150"),
                (Person(name: "Young", age: -1), .belowMinimum(.int(0)), "must be at least 0"),
                (
                    Person(name: "Mail", email: "not-an-address"), .patternMismatch(name: nil),
                    "must match the required pattern"
                ),
            ]
            for (person, kind, sentence) in cases {
                let error = try await expectError(.validationFailed, entity: "Person") {
                    try await people.insert(person)
                }
                try expectEqual(error.violation?.kind, kind, "\(error)")
                try expect(error.clientMessage.hasSuffix(sentence), "\(error.clientMessage)")
                try expect(
                    !error.clientMessage.contains("not-an-address") && !error.clientMessage.contains("xxxx"),
                    "no value echoed")
            }
            try expectEqual(try await people.count(), 0, "nothing was written")
        }
    ]
}
