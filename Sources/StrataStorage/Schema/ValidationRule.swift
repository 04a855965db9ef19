import Foundation

/// A rule an attribute's non-null value must satisfy. A failure is a ``StrataError/Code/validationFailed``
/// naming the entity, record, property and rule.
public struct ValidationRule: Sendable, CustomStringConvertible {
    /// What a rule checks.
    public enum Kind: Sendable {
        /// A numeric (or date) value within bounds, inclusive.
        case range(min: Value?, max: Value?)
        /// A string's character count, or data's byte count, within bounds.
        case length(min: Int?, max: Int?)
        /// A string that matches the regular expression as a whole.
        case pattern(String)
        /// A named closure over the value.
        case custom(name: String, check: @Sendable (Value) -> Bool)
    }

    /// What the rule checks.
    public var kind: Kind
    /// A name for clients (`"slug"` makes a pattern's failure "must match the slug pattern").
    public var name: String?

    /// A rule of this kind.
    public init(_ kind: Kind, name: String? = nil) {
        self.kind = kind
        self.name = name
    }

    /// An integer within bounds.
    public static func range(_ bounds: ClosedRange<Int>) -> ValidationRule {
        ValidationRule(.range(min: .int(Int64(bounds.lowerBound)), max: .int(Int64(bounds.upperBound))))
    }
    /// A number within bounds.
    public static func range(_ bounds: ClosedRange<Double>) -> ValidationRule {
        ValidationRule(.range(min: .double(bounds.lowerBound), max: .double(bounds.upperBound)))
    }
    /// An integer at least the bound.
    public static func range(_ bounds: PartialRangeFrom<Int>) -> ValidationRule {
        ValidationRule(.range(min: .int(Int64(bounds.lowerBound)), max: nil))
    }
    /// A number at least the bound.
    public static func range(_ bounds: PartialRangeFrom<Double>) -> ValidationRule {
        ValidationRule(.range(min: .double(bounds.lowerBound), max: nil))
    }
    /// A decimal within bounds, compared exactly.
    public static func range(_ bounds: ClosedRange<Decimal>) -> ValidationRule {
        ValidationRule(
            .range(
                min: .decimal(DecimalForm.canonical(bounds.lowerBound)),
                max: .decimal(DecimalForm.canonical(bounds.upperBound))))
    }
    /// A decimal at least the bound (`.range(Decimal(0)...)`: no negative prices).
    public static func range(_ bounds: PartialRangeFrom<Decimal>) -> ValidationRule {
        ValidationRule(.range(min: .decimal(DecimalForm.canonical(bounds.lowerBound)), max: nil))
    }
    /// A string's characters or data's bytes within bounds.
    public static func length(_ bounds: ClosedRange<Int>) -> ValidationRule {
        ValidationRule(.length(min: bounds.lowerBound, max: bounds.upperBound))
    }
    /// A string's characters or data's bytes at least the bound.
    public static func length(_ bounds: PartialRangeFrom<Int>) -> ValidationRule {
        ValidationRule(.length(min: bounds.lowerBound, max: nil))
    }
    /// A string matching the regular expression as a whole; `name` is what a client is told it
    /// must match ("must match the slug pattern"), never the expression.
    public static func pattern(_ regex: String, named name: String? = nil) -> ValidationRule {
        ValidationRule(.pattern(regex), name: name)
    }
    /// A named check of the value; the name appears in the error.
    public static func custom(_ name: String, _ check: @escaping @Sendable (Value) -> Bool) -> ValidationRule {
        ValidationRule(.custom(name: name, check: check))
    }

    public var description: String {
        switch kind {
        case .range(let min, let max):
            "range(\(min.map(String.init(describing:)) ?? "")...\(max.map(String.init(describing:)) ?? ""))"
        case .length(let min, let max): "length(\(min.map(String.init) ?? "")...\(max.map(String.init) ?? ""))"
        case .pattern(let regex): "pattern(\(regex))"
        case .custom(let name, _): name
        }
    }

    /// `nil` when `value` passes; otherwise why it failed, for logs (it may show the value).
    package func failure(for value: Value) -> String? {
        guard let violation = violation(for: value) else { return nil }
        switch violation.kind {
        case .belowMinimum(let minimum): return "\(value) is below the minimum \(minimum)"
        case .aboveMaximum(let maximum): return "\(value) is above the maximum \(maximum)"
        case .tooShort(let minimum): return "length \(Self.length(of: value) ?? 0) is below the minimum \(minimum)"
        case .tooLong(let maximum): return "length \(Self.length(of: value) ?? 0) is above the maximum \(maximum)"
        case .patternMismatch:
            guard case .pattern(let regex) = kind, case .string(let text) = value else { return "no match" }
            if (try? Regex(regex)) == nil { return "pattern \(regex) does not compile" }
            return "\"\(text)\" does not match \(regex)"
        case .custom(let name): return "\(value) fails \(name)"
        case .notAllowed, .forbiddenCharacter: return violation.clientMessage
        }
    }

    /// `nil` when `value` passes; otherwise the rule it broke.
    package func violation(for value: Value) -> RuleViolation? {
        let isText: Bool
        if case .data = value { isText = false } else { isText = true }
        switch kind {
        case .range(let min, let max):
            if let min, let order = Value.compare(value, min), order == .ascending {
                return RuleViolation(.belowMinimum(min))
            }
            if let max, let order = Value.compare(value, max), order == .descending {
                return RuleViolation(.aboveMaximum(max))
            }
            return nil
        case .length(let min, let max):
            guard let length = Self.length(of: value) else { return nil }
            if let min, length < min { return RuleViolation(.tooShort(minimum: min), isText: isText) }
            if let max, length > max { return RuleViolation(.tooLong(maximum: max), isText: isText) }
            return nil
        case .pattern(let regex):
            guard case .string(let text) = value else { return nil }
            guard let expression = try? Regex(regex), (try? expression.wholeMatch(in: text)) != nil else {
                return RuleViolation(.patternMismatch(name: name))
            }
            return nil
        case .custom(let name, let check):
            return check(value) ? nil : RuleViolation(.custom(name: name))
        }
    }

    /// A string's character count or data's byte count.
    private static func length(of value: Value) -> Int? {
        switch value {
        case .string(let text): text.count
        case .data(let bytes): bytes.count
        default: nil
        }
    }
}
