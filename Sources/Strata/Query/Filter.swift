/// A typed filter (predicate) over a model — named `Filter` so it never clashes with Foundation.Predicate, built from
/// key paths:
///
/// ```swift
/// \Trip.budget > 1000 && .hasPrefix(\.name, "lis", options: .caseInsensitive)
/// .related(\Trip.traveller, where: \Person.name == "Ana")
/// .any(Trip.stops, where: \Stop.city == "Porto")
/// ```
/// Key paths are resolved to property names when the predicate is built; an unknown property is
/// reported when the query runs, as `StrataError.Code.invalidQuery`.
public struct Filter<Model: PersistentModel>: Sendable {
    /// The untyped tree backends evaluate.
    public let expression: FilterExpression
    /// The first key path that could not be named, reported when the query runs.
    let failure: StrataError?

    /// A filter over an untyped expression (for tools).
    public init(_ expression: FilterExpression) {
        self.expression = expression
        self.failure = nil
    }

    init(_ expression: FilterExpression, failure: StrataError?) {
        self.expression = expression
        self.failure = failure
    }

    static func on(_ keyPath: PartialKeyPath<Model>, _ make: (String) -> FilterExpression) -> Filter {
        switch Model.entity.propertyName(keyPath) {
        case .success(let name): Filter(make(name))
        case .failure(let error): Filter(.constant(false), failure: error)
        }
    }

    static func combine(_ parts: [Filter], _ make: ([FilterExpression]) -> FilterExpression) -> Filter {
        Filter(make(parts.map(\.expression)), failure: parts.lazy.compactMap(\.failure).first)
    }

    /// Matches every record.
    public static var always: Filter { Filter(.constant(true)) }
    /// Matches no record.
    public static var never: Filter { Filter(.constant(false)) }

    /// Equality with text options: `.equals(\.name, "ana", options: .caseInsensitive)`.
    public static func equals<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V>, _ value: V, options: TextOptions)
        -> Filter
    {
        on(keyPath) { .compare($0, .equal, value.attributeValue, options) }
    }
    /// The property equals one of `values` (an empty list matches nothing).
    public static func `in`<V: AttributeConvertible>(
        _ keyPath: KeyPath<Model, V>, _ values: [V], options: TextOptions = []
    ) -> Filter {
        on(keyPath) { .inList($0, values.map(\.attributeValue), options) }
    }
    /// The property lies between `lower` and `upper`, both included; nil never does.
    public static func between<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V>, _ lower: V, _ upper: V) -> Filter
    {
        on(keyPath) { .between($0, lower.attributeValue, upper.attributeValue) }
    }
    /// The text property contains `text`; nil never does.
    public static func contains<V: AttributeConvertible>(
        _ keyPath: KeyPath<Model, V>, _ text: String, options: TextOptions = []
    ) -> Filter {
        on(keyPath) { .text($0, .contains, text, options) }
    }
    /// The text property starts with `text`.
    public static func hasPrefix<V: AttributeConvertible>(
        _ keyPath: KeyPath<Model, V>, _ text: String, options: TextOptions = []
    ) -> Filter {
        on(keyPath) { .text($0, .hasPrefix, text, options) }
    }
    /// The text property ends with `text`.
    public static func hasSuffix<V: AttributeConvertible>(
        _ keyPath: KeyPath<Model, V>, _ text: String, options: TextOptions = []
    ) -> Filter {
        on(keyPath) { .text($0, .hasSuffix, text, options) }
    }
    /// The optional property is nil (for a to-one: no destination).
    public static func isNil<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V?>) -> Filter {
        on(keyPath) { .isNil($0) }
    }
    /// The optional property has a value.
    public static func isNotNil<V: AttributeConvertible>(_ keyPath: KeyPath<Model, V?>) -> Filter {
        on(keyPath) { .not(.isNil($0)) }
    }
    /// The negation (two-valued: a comparison with nil is false, so its negation is true).
    public static func not(_ predicate: Filter) -> Filter { !predicate }
    /// Every filter matches (an empty list matches everything).
    public static func all(_ predicates: [Filter]) -> Filter { combine(predicates) { .and($0) } }
    /// Some filter matches (an empty list matches nothing).
    public static func any(_ predicates: [Filter]) -> Filter { combine(predicates) { .or($0) } }

    /// The to-one destination exists and matches (`trips whose traveller's name is "Ana"`).
    public static func related<D: PersistentModel>(_ keyPath: KeyPath<Model, D.ID?>, where inner: Filter<D>) -> Filter {
        let outer = on(keyPath) { .relatedOne(relationship: $0, inner.expression) }
        return Filter(outer.expression, failure: outer.failure ?? inner.failure)
    }
    /// The required to-one destination exists and matches.
    public static func related<D: PersistentModel>(_ keyPath: KeyPath<Model, D.ID>, where inner: Filter<D>) -> Filter {
        let outer = on(keyPath) { .relatedOne(relationship: $0, inner.expression) }
        return Filter(outer.expression, failure: outer.failure ?? inner.failure)
    }
    /// The to-one destination — of the type named, since a key path to an ID cannot name it — exists
    /// and matches: `.related(\Desk.occupant, to: Person.self)` (exists), or
    /// `.related(\Desk.occupant, to: Person.self, where: \.name == "Ana")`.
    public static func related<D: PersistentModel>(
        _ keyPath: KeyPath<Model, D.ID?>, to type: D.Type, where inner: Filter<D> = .always
    ) -> Filter {
        related(keyPath, where: inner)
    }
    /// The required to-one destination of the type named exists and matches.
    public static func related<D: PersistentModel>(
        _ keyPath: KeyPath<Model, D.ID>, to type: D.Type, where inner: Filter<D> = .always
    ) -> Filter {
        related(keyPath, where: inner)
    }
    /// Some destination of the to-many matches.
    public static func any<D: PersistentModel>(_ relationship: ToMany<Model, D>, where inner: Filter<D> = .always)
        -> Filter
    {
        Filter(.anyRelated(relationship: relationship.name, inner.expression), failure: inner.failure)
    }
    /// No destination of the to-many matches.
    public static func none<D: PersistentModel>(_ relationship: ToMany<Model, D>, where inner: Filter<D> = .always)
        -> Filter
    {
        Filter(.noneRelated(relationship: relationship.name, inner.expression), failure: inner.failure)
    }
}

/// Both filters match.
public func && <M>(lhs: Filter<M>, rhs: Filter<M>) -> Filter<M> { .combine([lhs, rhs]) { .and($0) } }
/// Either filter matches.
public func || <M>(lhs: Filter<M>, rhs: Filter<M>) -> Filter<M> { .combine([lhs, rhs]) { .or($0) } }
/// The filter does not match.
public prefix func ! <M>(predicate: Filter<M>) -> Filter<M> {
    Filter(.not(predicate.expression), failure: predicate.failure)
}

private func comparison<M: PersistentModel, V: AttributeConvertible>(
    _ keyPath: KeyPath<M, V>, _ op: ComparisonOperator, _ value: V
) -> Filter<M> {
    let constant = value.attributeValue
    return Filter.on(keyPath) { name in
        switch (op, constant.isNull) {
        case (.equal, true): .isNil(name)
        case (.notEqual, true): .not(.isNil(name))
        default: .compare(name, op, constant, [])
        }
    }
}

/// The property equals the value (`== nil` is ``Filter/isNil(_:)``).
public func == <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Filter<M> {
    comparison(lhs, .equal, rhs)
}
/// The property differs from the value; a nil property differs from any value.
public func != <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Filter<M> {
    comparison(lhs, .notEqual, rhs)
}
/// The property is less than the value; nil never is.
public func < <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Filter<M> {
    comparison(lhs, .less, rhs)
}
/// The property is at most the value; nil never is.
public func <= <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Filter<M> {
    comparison(lhs, .lessOrEqual, rhs)
}
/// The property is greater than the value; nil never is.
public func > <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Filter<M> {
    comparison(lhs, .greater, rhs)
}
/// The property is at least the value; nil never is.
public func >= <M: PersistentModel, V: AttributeConvertible>(lhs: KeyPath<M, V>, rhs: V) -> Filter<M> {
    comparison(lhs, .greaterOrEqual, rhs)
}
