import Foundation

/// A broken rule as JSON for a client, as ``ProblemDetails`` carries it: the rule, its bound, and
/// the sentence ``RuleViolation/clientMessage`` says — never the value that broke it.
///
/// `{"rule": "tooLong", "maximum": 80, "unit": "characters", "message": "must be at most 80 characters"}`
extension RuleViolation: Encodable {
    private enum Keys: String, CodingKey {
        case rule, minimum, maximum, unit, pattern, name, message
    }

    /// The rule's name: `belowMinimum`, `aboveMaximum`, `tooShort`, `tooLong`, `patternMismatch`,
    /// `notAllowed`, `custom`, `forbiddenCharacter`.
    public var rule: String {
        switch kind {
        case .belowMinimum: "belowMinimum"
        case .aboveMaximum: "aboveMaximum"
        case .tooShort: "tooShort"
        case .tooLong: "tooLong"
        case .patternMismatch: "patternMismatch"
        case .notAllowed: "notAllowed"
        case .custom: "custom"
        case .forbiddenCharacter: "forbiddenCharacter"
        }
    }

    /// Writes the rule, its bound and its sentence (the form above).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(rule, forKey: .rule)
        switch kind {
        case .belowMinimum(let bound): try Self.encode(bound, in: &container, forKey: .minimum)
        case .aboveMaximum(let bound): try Self.encode(bound, in: &container, forKey: .maximum)
        case .tooShort(let minimum):
            try container.encode(minimum, forKey: .minimum)
            try container.encode(isText ? "characters" : "bytes", forKey: .unit)
        case .tooLong(let maximum):
            try container.encode(maximum, forKey: .maximum)
            try container.encode(isText ? "characters" : "bytes", forKey: .unit)
        case .patternMismatch(let name): try container.encodeIfPresent(name, forKey: .pattern)
        case .custom(let name): try container.encode(name, forKey: .name)
        case .notAllowed, .forbiddenCharacter: break
        }
        try container.encode(clientMessage, forKey: .message)
    }

    /// A bound as a plain JSON value: a number for numbers, ISO 8601 text for a date, exact text for
    /// a decimal (a bound is the schema's, never a record's).
    private static func encode(
        _ bound: Value, in container: inout KeyedEncodingContainer<Keys>, forKey key: Keys
    ) throws {
        switch bound {
        case .int(let number): try container.encode(number, forKey: key)
        case .double(let number) where number.isFinite: try container.encode(number, forKey: key)
        case .date(let date): try container.encode(date.formatted(.iso8601), forKey: key)
        default: try container.encode("\(bound)", forKey: key)
        }
    }
}
