/// Which rule a value broke, carried by a ``StrataError/Code/validationFailed`` error
/// (``StrataError/violation``): structured for code, and a sentence for a client that never
/// repeats the value (only what the schema declares: bounds, a pattern's name).
public struct RuleViolation: Sendable, Hashable {
    /// What was wrong.
    public enum Kind: Sendable, Hashable {
        /// Below the rule's minimum (numbers and dates).
        case belowMinimum(Value)
        /// Above the rule's maximum.
        case aboveMaximum(Value)
        /// Fewer characters (text) or bytes (data) than the minimum.
        case tooShort(minimum: Int)
        /// More characters (text) or bytes (data) than the maximum.
        case tooLong(maximum: Int)
        /// Text that does not match the rule's pattern; its name when the schema gave one.
        case patternMismatch(name: String?)
        /// Not one of the attribute's allowed values.
        case notAllowed
        /// A named custom rule said no.
        case custom(name: String)
        /// Text holding U+0000, which no backend stores.
        case forbiddenCharacter
    }

    /// What was wrong.
    public var kind: Kind
    /// Whether the value was text (lengths count characters) rather than data (bytes).
    public var isText: Bool

    /// A violation.
    public init(_ kind: Kind, isText: Bool = true) {
        self.kind = kind
        self.isText = isText
    }

    /// What a client may be told: "must be at most 80 characters", "must match the slug pattern".
    public var clientMessage: String {
        func count(_ n: Int) -> String { "\(n) \(isText ? "character" : "byte")\(n == 1 ? "" : "s")" }
        switch kind {
        case .belowMinimum(let minimum): return "must be at least \(minimum)"
        case .aboveMaximum(let maximum): return "must be at most \(maximum)"
        case .tooShort(let minimum): return "must be at least \(count(minimum))"
        case .tooLong(let maximum): return "must be at most \(count(maximum))"
        case .patternMismatch(let name?): return "must match the \(name) pattern"
        case .patternMismatch(nil): return "must match the required pattern"
        case .notAllowed: return "must be one of the allowed values"
        case .custom(let name): return "must satisfy \(name)"
        case .forbiddenCharacter: return "may not contain the character U+0000"
        }
    }
}
