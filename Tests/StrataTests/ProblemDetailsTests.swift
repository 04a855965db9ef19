import Foundation
import Strata
import StrataConformance
import Testing

/// `StrataError.problemDetails`: RFC 9457's fields and Strata's extensions, the broken rules
/// structured, and never a record's ID, a value or the diagnostic message — for any error.
@Suite struct ProblemDetailsTests {
    static let codes: [StrataError.Code] = [
        .notFound, .duplicateID, .uniqueViolation, .validationFailed, .missingValue, .typeMismatch,
        .relationshipCount, .invalidReference, .deleteDenied, .mergeConflict, .versionMismatch, .invalidQuery,
        .unknownEntity, .unknownProperty, .permissionDenied, .resetRequired, .diskFull, .quotaExceeded,
        .storeClosed, .storeInUse, .storageFailure, .corruptStore, .refusedByHook,
    ]

    static func violation(_ random: inout SeededRandom) -> RuleViolation {
        let kinds: [RuleViolation.Kind] = [
            .belowMinimum(.int(Int64(random.int(-1_000...1_000)))),
            .aboveMaximum(.double(Double(random.int(0...99)) / 4)),
            .belowMinimum(.date(Date(timeIntervalSince1970: Double(random.int(0...2_000_000_000))))),
            .aboveMaximum(.decimal(Decimal(string: "12.50") ?? 0)), .tooShort(minimum: random.int(1...9)),
            .tooLong(maximum: random.int(10...500)), .patternMismatch(name: random.chance(0.5) ? "slug" : nil),
            .notAllowed, .custom(name: "startsBeforeEnd"), .forbiddenCharacter,
        ]
        return RuleViolation(random.pick(kinds), isText: random.chance(0.7))
    }

    static func json(_ details: ProblemDetails) throws -> (text: String, object: [String: Any]) {
        let data = try JSONEncoder().encode(details)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (String(decoding: data, as: UTF8.self), object)
    }

    @Test func aTooLongValueIsTheRuleItsBoundAndTheSentence() throws {
        var error = StrataError(.validationFailed, entity: "Project", property: "slug", "slug is 93 characters")
        error.violation = RuleViolation(.tooLong(maximum: 80))
        let (_, object) = try Self.json(error.problemDetails)
        #expect(object["type"] as? String == "urn:strata:error:validationFailed")
        #expect(object["title"] as? String == "Unprocessable Content")
        #expect(object["status"] as? Int == 422)
        #expect(object["detail"] as? String == "invalid value (Project.slug): must be at most 80 characters")
        #expect(object["code"] as? String == "validationFailed")
        #expect(object["entity"] as? String == "Project" && object["property"] as? String == "slug")
        let violations = try #require(object["violations"] as? [[String: Any]])
        #expect(violations.count == 1)
        #expect(violations.first?["rule"] as? String == "tooLong")
        #expect(violations.first?["maximum"] as? Int == 80)
        #expect(violations.first?["unit"] as? String == "characters")
        #expect(violations.first?["message"] as? String == "must be at most 80 characters")
        #expect(ProblemDetails.mediaType == "application/problem+json")
    }

    @Test func anyErrorsDetailsSayItsStatusAndMessageAndNothingPrivate() throws {
        var system = SystemRandomNumberGenerator()
        let seed = system.next()
        print("anyErrorsDetailsSayItsStatusAndMessageAndNothingPrivate: seed \(seed)")
        var random = SeededRandom(seed: seed)
        for round in 0..<500 {
            let secret = "secret-\(random.int(100_000...999_999))"
            let id = random.uuid()
            var error = StrataError(
                random.pick(Self.codes), entity: random.chance(0.8) ? "Note" : nil, recordID: .uuid(id),
                property: random.chance(0.6) ? "title" : nil, "\(secret) in /var/lib/\(secret)/store.sqlite")
            if error.code == .validationFailed, random.chance(0.9) { error.violation = Self.violation(&random) }
            let (text, object) = try Self.json(error.problemDetails)
            let context = "round \(round), seed \(seed): \(text)"
            #expect(object["status"] as? Int == error.httpStatus, "\(context)")
            #expect(object["detail"] as? String == error.clientMessage, "\(context)")
            #expect(object["type"] as? String == "urn:strata:error:\(error.code.rawValue)", "\(context)")
            #expect((object["title"] as? String)?.isEmpty == false, "\(context)")
            #expect(!text.contains(secret) && !text.lowercased().contains(id.uuidString.lowercased()), "\(context)")
            let rules = (object["violations"] as? [[String: Any]])?.compactMap { $0["rule"] as? String }
            #expect(rules == error.violation.map { [$0.rule] }, "\(context)")
            let messages = (object["violations"] as? [[String: Any]])?.compactMap { $0["message"] as? String }
            #expect(messages == error.violation.map { [$0.clientMessage] }, "\(context)")
        }
    }
}
