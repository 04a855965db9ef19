/// The untyped predicate tree that travels from the typed DSL through the engine to backends.
///
/// Semantics every backend must reproduce (the engine's ``PredicateEvaluator`` is the reference):
/// - Two-valued logic. A comparison with a null property is false, except `!=` against a non-null
///   constant, which is true (Swift's `nil != 5`). `not` negates the result.
/// - `== nil` / `!= nil` are ``isNil(_:)`` and its negation.
/// - Numbers compare across `int` and `double`.
/// - `relatedOne` is false when the to-one is null or points at a missing record.
/// - `anyRelated` holds when some destination matches; `noneRelated` when none does.
public indirect enum FilterExpression: Sendable, Hashable {
    case constant(Bool)
    case compare(String, ComparisonOperator, Value, TextOptions)
    case inList(String, [Value], TextOptions)
    case between(String, Value, Value)
    case text(String, TextOperator, String, TextOptions)
    case isNil(String)
    case and([FilterExpression])
    case or([FilterExpression])
    case not(FilterExpression)
    /// The destination of a to-one relationship matches.
    case relatedOne(relationship: String, FilterExpression)
    /// Some destination of a to-many relationship matches.
    case anyRelated(relationship: String, FilterExpression)
    /// No destination of a to-many relationship matches.
    case noneRelated(relationship: String, FilterExpression)

    /// The expression with every text constant in NFC (see ``ValueRules``); the same expression
    /// when there is nothing to change, which is the common, ASCII case.
    func normalizingConstants() -> FilterExpression {
        switch self {
        case .constant, .isNil:
            return self
        case .compare(let property, let op, let constant, let options):
            return .compare(property, op, ValueRules.normalized(constant), options)
        case .inList(let property, let constants, let options):
            return .inList(property, constants.map(ValueRules.normalized), options)
        case .between(let property, let lower, let upper):
            return .between(property, ValueRules.normalized(lower), ValueRules.normalized(upper))
        case .text(let property, let op, let needle, let options):
            return .text(property, op, ValueRules.nfc(needle), options)
        case .and(let parts): return .and(parts.map { $0.normalizingConstants() })
        case .or(let parts): return .or(parts.map { $0.normalizingConstants() })
        case .not(let inner): return .not(inner.normalizingConstants())
        case .relatedOne(let name, let inner): return .relatedOne(relationship: name, inner.normalizingConstants())
        case .anyRelated(let name, let inner): return .anyRelated(relationship: name, inner.normalizingConstants())
        case .noneRelated(let name, let inner): return .noneRelated(relationship: name, inner.normalizingConstants())
        }
    }

    /// The features a backend needs to evaluate this expression natively.
    public var requiredFeatures: Set<PredicateFeature> {
        var features: Set<PredicateFeature> = []
        collectFeatures(into: &features)
        return features
    }

    private func collectFeatures(into features: inout Set<PredicateFeature>) {
        func options(_ options: TextOptions) {
            if options.contains(.caseInsensitive) { features.insert(.caseInsensitive) }
            if options.contains(.diacriticInsensitive) { features.insert(.diacriticInsensitive) }
        }
        switch self {
        case .constant: break
        case .compare(_, let op, _, let textOptions):
            features.insert(op == .equal || op == .notEqual ? .equality : .ordering)
            options(textOptions)
        case .inList(_, _, let textOptions): features.insert(.inList); options(textOptions)
        case .between: features.insert(.between)
        case .text(_, _, _, let textOptions): features.insert(.text); options(textOptions)
        case .isNil: features.insert(.isNil)
        case .and(let parts), .or(let parts):
            features.insert(.logic)
            for part in parts { part.collectFeatures(into: &features) }
        case .not(let inner): features.insert(.logic); inner.collectFeatures(into: &features)
        case .relatedOne(_, let inner): features.insert(.toOne); inner.collectFeatures(into: &features)
        case .anyRelated(_, let inner), .noneRelated(_, let inner):
            features.insert(.toMany); inner.collectFeatures(into: &features)
        }
    }
}

public enum ComparisonOperator: String, Sendable, Hashable, Codable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
}

public enum TextOperator: String, Sendable, Hashable, Codable {
    case contains, hasPrefix, hasSuffix
}

/// How string comparisons fold text before comparing.
public struct TextOptions: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// "Ana" matches "ana".
    public static let caseInsensitive = TextOptions(rawValue: 1)
    /// "Sao" matches "São".
    public static let diacriticInsensitive = TextOptions(rawValue: 2)
}

/// A part of the predicate language a backend may or may not evaluate natively.
public enum PredicateFeature: String, Sendable, Hashable, Codable, CaseIterable {
    case equality, ordering, inList, between, text, caseInsensitive, diacriticInsensitive, isNil, logic, toOne, toMany
}
