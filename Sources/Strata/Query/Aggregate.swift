import Foundation

/// A typed aggregate of one model type: a function over a stored property and the Swift type its
/// result reads as. Pass several to ``ModelReading/aggregate(_:where:)`` or
/// ``ModelReading/aggregate(_:groupedBy:where:)``; each result comes back in its own type.
///
/// ```swift
/// let (trips, spent) = try await trips.aggregate(.count, .sum(\.budget), where: \.isFavorite == true)
/// for (traveller, count, average) in try await trips.aggregate(.count, .average(\.budget), groupedBy: \.traveller) { … }
/// ```
///
/// Results follow `AggregateFunction`: nulls skipped, a sum of nothing is `0`, an average,
/// minimum or maximum of nothing is `nil`.
public struct Aggregate<Model: PersistentModel, Result: Sendable>: Sendable {
    /// The untyped function.
    public let function: AggregateFunction
    let failure: StrataError?
    let read: @Sendable (Value) throws -> Result

    init(_ function: AggregateFunction, failure: StrataError? = nil, read: @escaping @Sendable (Value) throws -> Result)
    {
        self.function = function
        self.failure = failure
        self.read = read
    }
}

extension Aggregate {
    /// How many records match.
    public static var count: Aggregate<Model, Int> {
        Aggregate<Model, Int>(.count) { value in
            guard case .int(let count) = value, let result = Int(exactly: count) else {
                throw unreadable("count", value, Int.self)
            }
            return result
        }
    }

    /// The sum of an `int` or `double` attribute: `0` when no record holds a value.
    public static func sum<V: SummableAttribute>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, V.Unwrapped> {
        typed(keyPath, AggregateFunction.sum) { name, value in
            guard let result = V.Unwrapped.fromAttributeValue(value) else {
                throw unreadable("sum(\(name))", value, V.Unwrapped.self)
            }
            return result
        }
    }

    /// The average of an `int` or `double` attribute, or `nil` when no record holds a value.
    public static func average<V: SummableAttribute>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, Double?> {
        typed(keyPath, AggregateFunction.average) { name, value in
            if value.isNull { return nil }
            guard case .double(let average) = value else { throw unreadable("average(\(name))", value, Double.self) }
            return average
        }
    }

    /// The average of a decimal attribute, exact to 38 significant digits (the engine divides the
    /// exact sum), or `nil` when no record holds a value.
    public static func average(_ keyPath: KeyPath<Model, Decimal>) -> Aggregate<Model, Decimal?> {
        decimalAverage(keyPath)
    }

    /// The average of an optional decimal attribute, as for a decimal one.
    public static func average(_ keyPath: KeyPath<Model, Decimal?>) -> Aggregate<Model, Decimal?> {
        decimalAverage(keyPath)
    }

    private static func decimalAverage<V>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, Decimal?> {
        typed(keyPath, AggregateFunction.average) { name, value in
            if value.isNull { return nil }
            guard case .decimal(let average) = value else { throw unreadable("average(\(name))", value, Decimal.self) }
            return average
        }
    }

    /// The least value of an `int`, `double`, `string` or `date` attribute, or `nil` when no
    /// record holds one.
    public static func min<V: OrderedAttribute>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, V.Unwrapped?> {
        extreme(keyPath, AggregateFunction.min)
    }

    /// The greatest value of an `int`, `double`, `string` or `date` attribute, or `nil` when no
    /// record holds one.
    public static func max<V: OrderedAttribute>(_ keyPath: KeyPath<Model, V>) -> Aggregate<Model, V.Unwrapped?> {
        extreme(keyPath, AggregateFunction.max)
    }

    private static func extreme<V: OrderedAttribute>(
        _ keyPath: KeyPath<Model, V>, _ make: @escaping (String) -> AggregateFunction
    ) -> Aggregate<Model, V.Unwrapped?> {
        typed(keyPath, make) { name, value in
            if value.isNull { return nil }
            guard let result = V.Unwrapped.fromAttributeValue(value) else {
                throw unreadable("extreme of \(name)", value, V.Unwrapped.self)
            }
            return result
        }
    }

    private static func typed<V, R: Sendable>(
        _ keyPath: KeyPath<Model, V>, _ make: (String) -> AggregateFunction,
        _ read: @escaping @Sendable (String, Value) throws -> R
    ) -> Aggregate<Model, R> {
        switch Model.entity.propertyName(keyPath) {
        case .success(let name): return Aggregate<Model, R>(make(name)) { try read(name, $0) }
        case .failure(let error): return Aggregate<Model, R>(make("?"), failure: error) { try read("?", $0) }
        }
    }

    private static func unreadable(_ what: String, _ value: Value, _ type: Any.Type) -> StrataError {
        StrataError(
            .typeMismatch, entity: Model.entityName,
            "\(Model.entityName) \(what) is \(value), which \(type) cannot hold")
    }
}

/// An attribute type ``Aggregate/min(_:)`` and ``Aggregate/max(_:)`` apply to: integers,
/// floating point, `String`, `Date`, and their optionals (the result is the non-optional type).
public protocol OrderedAttribute: AttributeConvertible {
    /// The type without its optional.
    associatedtype Unwrapped: AttributeConvertible
}

/// An attribute type ``Aggregate/sum(_:)`` and ``Aggregate/average(_:)->Aggregate<Model,Double?>``
/// apply to: integers, floating point, decimals and their optionals.
public protocol SummableAttribute: OrderedAttribute {}

extension Optional: OrderedAttribute where Wrapped: OrderedAttribute { public typealias Unwrapped = Wrapped.Unwrapped }
extension Optional: SummableAttribute where Wrapped: SummableAttribute {}
extension Int: SummableAttribute { public typealias Unwrapped = Int }
extension Int64: SummableAttribute { public typealias Unwrapped = Int64 }
extension Int32: SummableAttribute { public typealias Unwrapped = Int32 }
extension Int16: SummableAttribute { public typealias Unwrapped = Int16 }
extension Int8: SummableAttribute { public typealias Unwrapped = Int8 }
extension UInt32: SummableAttribute { public typealias Unwrapped = UInt32 }
extension UInt16: SummableAttribute { public typealias Unwrapped = UInt16 }
extension UInt8: SummableAttribute { public typealias Unwrapped = UInt8 }
extension Double: SummableAttribute { public typealias Unwrapped = Double }
extension Float: SummableAttribute { public typealias Unwrapped = Float }
extension Decimal: SummableAttribute { public typealias Unwrapped = Decimal }
extension String: OrderedAttribute { public typealias Unwrapped = String }
extension Date: OrderedAttribute { public typealias Unwrapped = Date }
