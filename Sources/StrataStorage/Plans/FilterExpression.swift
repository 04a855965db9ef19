/// The untyped predicate tree that travels from the typed DSL through the engine to backends.
///
/// Semantics every backend must reproduce (the engine's ``PredicateEvaluator`` is the reference):
/// - Two-valued logic. A comparison with a null property is false, except `!=` against a non-null
///   constant, which is true (Swift's `nil != 5`). `not` negates the result.
/// - `== nil` / `!= nil` are `isNil(_:)` and its negation.
/// - Numbers compare across `int` and `double`.
/// - `relatedOne` is false when the to-one is null or points at a missing record.
/// - `anyRelated` holds when some destination matches; `noneRelated` when none does.
public indirect enum FilterExpression: Sendable, Hashable {
    /// Always true or always false.
    case constant(Bool)
    /// A property compared with a constant, with text options for strings.
    case compare(String, ComparisonOperator, Value, TextOptions)
    /// A property equal to one of the constants.
    case inList(String, [Value], TextOptions)
    /// A property within the bounds, inclusive.
    case between(String, Value, Value)
    /// A string property that contains, starts with or ends with the text.
    case text(String, TextOperator, String, TextOptions)
    /// A property that holds null.
    case isNil(String)
    /// Every part holds (true when empty).
    case and([FilterExpression])
    /// Some part holds (false when empty).
    case or([FilterExpression])
    /// The condition does not hold.
    case not(FilterExpression)
    /// The destination of a to-one relationship matches.
    case relatedOne(relationship: String, FilterExpression)
    /// Some destination of a to-many relationship matches.
    case anyRelated(relationship: String, FilterExpression)
    /// No destination of a to-many relationship matches.
    case noneRelated(relationship: String, FilterExpression)
    /// A test of an array, set or dictionary property's elements (a dictionary's keys for
    /// `contains`); false when the property is null.
    case elements(String, ElementTest)
    /// The value at a path inside a document property (object keys, outermost first) compared
    /// with a scalar constant (`==` and `!=` only). A missing path and a JSON `null` are both nil;
    /// an object or array there equals no scalar.
    case documentPath(String, [String], ComparisonOperator, Value)
    /// A full-text search of the entity's index named `index` (see ``SearchQuery`` and
    /// ``SearchIndexDescription``). The engine answers it from the index, the same way on every
    /// backend: a backend is never sent one.
    case search(index: String, SearchQuery)

    /// The expression with every text constant in NFC (see ``ValueRules``); the same expression
    /// when there is nothing to change, which is the common, ASCII case.
    package func normalizingConstants() -> FilterExpression {
        switch self {
        case .constant, .isNil, .search:
            return self
        case .elements(let property, .contains(let element)):
            return .elements(property, .contains(ValueRules.normalized(element)))
        case .elements(let property, .containsAny(let elements)):
            return .elements(property, .containsAny(elements.map(ValueRules.normalized)))
        case .elements:
            return self
        case .documentPath(let property, let path, let op, let constant):
            return .documentPath(property, path.map(ValueRules.nfc), op, ValueRules.normalized(constant))
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

    /// Whether a full-text search appears anywhere in the expression (the engine evaluates such a
    /// part itself, whatever the backend declares).
    public var containsSearch: Bool {
        switch self {
        case .search: true
        case .and(let parts), .or(let parts): parts.contains { $0.containsSearch }
        case .not(let inner), .relatedOne(_, let inner), .anyRelated(_, let inner), .noneRelated(_, let inner):
            inner.containsSearch
        case .constant, .compare, .inList, .between, .text, .isNil, .elements, .documentPath: false
        }
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
        case .inList(_, _, let textOptions):
            features.insert(.inList)
            options(textOptions)
        case .between: features.insert(.between)
        case .text(_, _, _, let textOptions):
            features.insert(.text)
            options(textOptions)
        case .isNil: features.insert(.isNil)
        case .elements: features.insert(.elements)
        case .documentPath: features.insert(.documentPaths)
        case .search: break  // never sent to a backend (see `containsSearch`)
        case .and(let parts), .or(let parts):
            features.insert(.logic)
            for part in parts { part.collectFeatures(into: &features) }
        case .not(let inner):
            features.insert(.logic)
            inner.collectFeatures(into: &features)
        case .relatedOne(_, let inner):
            features.insert(.toOne)
            inner.collectFeatures(into: &features)
        case .anyRelated(_, let inner), .noneRelated(_, let inner):
            features.insert(.toMany)
            inner.collectFeatures(into: &features)
        }
    }
}

/// How ``FilterExpression/compare(_:_:_:_:)`` compares a property with its constant.
public enum ComparisonOperator: String, Sendable, Hashable, Codable {
    /// Equal.
    case equal = "=="
    /// Not equal (a null property differs from every value).
    case notEqual = "!="
    /// Less than.
    case less = "<"
    /// Less than or equal.
    case lessOrEqual = "<="
    /// Greater than.
    case greater = ">"
    /// Greater than or equal.
    case greaterOrEqual = ">="
}

/// How ``FilterExpression/text(_:_:_:_:)`` matches text.
public enum TextOperator: String, Sendable, Hashable, Codable {
    /// The text occurs anywhere in the property.
    case contains
    /// The property starts with the text.
    case hasPrefix
    /// The property ends with the text.
    case hasSuffix
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
    /// `==` and `!=`.
    case equality
    /// `<`, `<=`, `>`, `>=`.
    case ordering
    /// ``FilterExpression/inList(_:_:_:)``.
    case inList
    /// ``FilterExpression/between(_:_:_:)``.
    case between
    /// Contains, prefix and suffix matches.
    case text
    /// Text compared without case.
    case caseInsensitive
    /// Text compared without diacritics.
    case diacriticInsensitive
    /// ``FilterExpression/isNil(_:)``.
    case isNil
    /// `and`, `or`, `not`.
    case logic
    /// Conditions on a to-one's destination.
    case toOne
    /// `any` and `none` over a to-many.
    case toMany
    /// ``FilterExpression/elements(_:_:)``: contains, contains any, and count of a collection.
    case elements
    /// ``FilterExpression/documentPath(_:_:_:_:)``: equality at a path inside a document.
    case documentPaths
}

/// What ``FilterExpression/elements(_:_:)`` asks of an array, set or dictionary.
public enum ElementTest: Sendable, Hashable {
    /// Some element equals the value (numbers numerically); for a dictionary, some key is the text.
    case contains(Value)
    /// Some element equals one of the values (for a dictionary, some key is one); an empty list
    /// matches nothing.
    case containsAny([Value])
    /// The number of elements (a dictionary's entries) compared with a count.
    case count(ComparisonOperator, Int)

    /// Whether a collection value passes; false for null (and for anything not a collection).
    public func matches(_ value: Value) -> Bool {
        switch (self, value) {
        case (.contains(let element), .array(let elements)):
            return elements.contains { Value.predicateEquals($0, element) }
        case (.containsAny(let candidates), .array(let elements)):
            return elements.contains { element in candidates.contains { Value.predicateEquals(element, $0) } }
        case (.contains(.string(let key)), .dictionary(let entries)):
            return entries[key] != nil
        case (.containsAny(let candidates), .dictionary(let entries)):
            return candidates.contains { if case .string(let key) = $0 { entries[key] != nil } else { false } }
        case (.count(let op, let count), .array(let elements)):
            return PredicateEvaluator.compare(.int(Int64(elements.count)), op, .int(Int64(count)))
        case (.count(let op, let count), .dictionary(let entries)):
            return PredicateEvaluator.compare(.int(Int64(entries.count)), op, .int(Int64(count)))
        default:
            return false
        }
    }
}
