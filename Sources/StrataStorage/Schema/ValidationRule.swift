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

    /// A rule of this kind.
    public init(_ kind: Kind) { self.kind = kind }

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
    /// A string's characters or data's bytes within bounds.
    public static func length(_ bounds: ClosedRange<Int>) -> ValidationRule {
        ValidationRule(.length(min: bounds.lowerBound, max: bounds.upperBound))
    }
    /// A string's characters or data's bytes at least the bound.
    public static func length(_ bounds: PartialRangeFrom<Int>) -> ValidationRule {
        ValidationRule(.length(min: bounds.lowerBound, max: nil))
    }
    /// A string matching the regular expression as a whole.
    public static func pattern(_ regex: String) -> ValidationRule { ValidationRule(.pattern(regex)) }
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

    /// `nil` when `value` passes; otherwise why it failed.
    package func failure(for value: Value) -> String? {
        switch kind {
        case .range(let min, let max):
            if let min, let order = Value.compare(value, min), order == .ascending {
                return "\(value) is below the minimum \(min)"
            }
            if let max, let order = Value.compare(value, max), order == .descending {
                return "\(value) is above the maximum \(max)"
            }
            return nil
        case .length(let min, let max):
            let length: Int
            switch value {
            case .string(let text): length = text.count
            case .data(let bytes): length = bytes.count
            default: return nil
            }
            if let min, length < min { return "length \(length) is below the minimum \(min)" }
            if let max, length > max { return "length \(length) is above the maximum \(max)" }
            return nil
        case .pattern(let regex):
            guard case .string(let text) = value else { return nil }
            guard let expression = try? Regex(regex) else { return "pattern \(regex) does not compile" }
            return (try? expression.wholeMatch(in: text)) == nil ? "\"\(text)\" does not match \(regex)" : nil
        case .custom(let name, let check):
            return check(value) ? nil : "\(value) fails \(name)"
        }
    }
}
