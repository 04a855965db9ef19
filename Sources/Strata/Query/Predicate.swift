/// A typed predicate over a model, built from key paths:
///
/// ```swift
/// \Trip.budget > 1000 && .hasPrefix(\.name, "lis", options: .caseInsensitive)
/// .related(\Trip.traveller, where: \Person.name == "Ana")
/// .any(Trip.stops, where: \Stop.city == "Porto")
/// ```
/// Key paths are resolved to property names when the predicate is built; an unknown property is
/// reported when the query runs, as ``StrataError/Code/invalidQuery``.
public struct Predicate<Model: PersistentModel>: Sendable {
    public let expression: PredicateExpression
    /// The first key path that could not be named, reported when the query runs.
    let failure: StrataError?

    public init(_ expression: PredicateExpression) {
        self.expression = expression
        self.failure = nil
    }

    init(_ expression: PredicateExpression, failure: StrataError?) {
        self.expression = expression
        self.failure = failure
    }

    static func on(_ keyPath: PartialKeyPath<Model>, _ make: (String) -> PredicateExpression) -> Predicate {
        switch Model.entity.propertyName(keyPath) {
        case .success(let name): Predicate(make(name))
        case .failure(let error): Predicate(.constant(false), failure: error)
        }
    }

    static func combine(_ parts: [Predicate], _ make: ([PredicateExpression]) -> PredicateExpression) -> Predicate {
        Predicate(make(parts.map(\.expression)), failure: parts.lazy.compactMap(\.failure).first)
    }

    public static var always: Predicate { Predicate(.constant(true)) }
    public static var never: Predicate { Predicate(.constant(false)) }

    public static func equals<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V>, _ value: V, options: TextOptions) -> Predicate {
        on(keyPath) { .compare($0, .equal, value.attributeValue, options) }
    }
    public static func `in`<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V>, _ values: [V], options: TextOptions = []) -> Predicate {
        on(keyPath) { .inList($0, values.map(\.attributeValue), options) }
    }
    public static func between<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V>, _ lower: V, _ upper: V) -> Predicate {
        on(keyPath) { .between($0, lower.attributeValue, upper.attributeValue) }
    }
    public static func contains<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V>, _ text: String, options: TextOptions = []) -> Predicate {
        on(keyPath) { .text($0, .contains, text, options) }
    }
    public static func hasPrefix<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V>, _ text: String, options: TextOptions = []) -> Predicate {
        on(keyPath) { .text($0, .hasPrefix, text, options) }
    }
    public static func hasSuffix<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V>, _ text: String, options: TextOptions = []) -> Predicate {
        on(keyPath) { .text($0, .hasSuffix, text, options) }
    }
    public static func isNil<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V?>) -> Predicate {
        on(keyPath) { .isNil($0) }
    }
    public static func isNotNil<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V?>) -> Predicate {
        on(keyPath) { .not(.isNil($0)) }
    }
    public static func not(_ predicate: Predicate) -> Predicate { !predicate }
    public static func all(_ predicates: [Predicate]) -> Predicate { combine(predicates) { .and($0) } }
    public static func any(_ predicates: [Predicate]) -> Predicate { combine(predicates) { .or($0) } }

    /// The to-one destination exists and matches (`trips whose traveller's name is "Ana"`).
    public static func related<D: PersistentModel>(_ keyPath: KeyPath<Model, D.ID?>, where inner: Predicate<D>) -> Predicate {
        let outer = on(keyPath) { .relatedOne(relationship: $0, inner.expression) }
        return Predicate(outer.expression, failure: outer.failure ?? inner.failure)
    }
    /// The required to-one destination exists and matches.
    public static func related<D: PersistentModel>(_ keyPath: KeyPath<Model, D.ID>, where inner: Predicate<D>) -> Predicate {
        let outer = on(keyPath) { .relatedOne(relationship: $0, inner.expression) }
        return Predicate(outer.expression, failure: outer.failure ?? inner.failure)
    }
    /// Some destination of the to-many matches.
    public static func any<D: PersistentModel>(_ relationship: ToMany<Model, D>, where inner: Predicate<D> = .always) -> Predicate {
        Predicate(.anyRelated(relationship: relationship.name, inner.expression), failure: inner.failure)
    }
    /// No destination of the to-many matches.
    public static func none<D: PersistentModel>(_ relationship: ToMany<Model, D>, where inner: Predicate<D> = .always) -> Predicate {
        Predicate(.noneRelated(relationship: relationship.name, inner.expression), failure: inner.failure)
    }
}

public func && <M>(lhs: Predicate<M>, rhs: Predicate<M>) -> Predicate<M> { .combine([lhs, rhs]) { .and($0) } }
public func || <M>(lhs: Predicate<M>, rhs: Predicate<M>) -> Predicate<M> { .combine([lhs, rhs]) { .or($0) } }
public prefix func ! <M>(predicate: Predicate<M>) -> Predicate<M> {
    Predicate(.not(predicate.expression), failure: predicate.failure)
}

private func comparison<M: PersistentModel, V: AttributeConvertible>(
    _ keyPath: KeyPath<M, V>, _ op: ComparisonOperator, _ value: V
) -> Predicate<M> {
    let constant = value.attributeValue
    return Predicate.on(keyPath) { name in
        switch (op, constant.isNull) {
        case (.equal, true): .isNil(name)
        case (.notEqual, true): .not(.isNil(name))
        default: .compare(name, op, constant, [])
        }
    }
}

public func == <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Predicate<M> { comparison(lhs, .equal, rhs) }
public func != <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Predicate<M> { comparison(lhs, .notEqual, rhs) }
public func < <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Predicate<M> { comparison(lhs, .less, rhs) }
public func <= <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Predicate<M> { comparison(lhs, .lessOrEqual, rhs) }
public func > <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Predicate<M> { comparison(lhs, .greater, rhs) }
public func >= <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Predicate<M> { comparison(lhs, .greaterOrEqual, rhs) }
