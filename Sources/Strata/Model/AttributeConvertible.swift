import Foundation

/// A Swift type that stores as one attribute `Value`: the scalars, their optionals, and enums
/// with a raw value (declare `extension Status: AttributeConvertible {}`; add `CaseIterable` and the
/// schema also rejects raw values that are not a case).
public protocol AttributeConvertible: Sendable {
    /// The stored kind.
    static var attributeType: AttributeType { get }
    /// Whether `nil` is a valid value (true for `Optional`).
    static var isOptionalAttribute: Bool { get }
    /// For enums: the raw values of every case.
    static var allowedAttributeValues: [Value]? { get }
    /// For arrays, sets and dictionaries: their elements' stored kind (`nil` when the elements are
    /// not scalars, which the schema refuses).
    static var elementAttributeType: AttributeType? { get }
    /// The stored form of this value.
    var attributeValue: Value { get }
    /// The value a stored form holds, or `nil` when it holds none of this type — the same
    /// conversions the `Codable` path makes, so reads can skip it (see `KeyPathDecoding`). The
    /// default returns `nil`: such types are read through `Codable`.
    static func fromAttributeValue(_ value: Value) -> Self?
}

extension AttributeConvertible {
    public static var isOptionalAttribute: Bool { false }
    public static var allowedAttributeValues: [Value]? { nil }
    public static var elementAttributeType: AttributeType? { nil }
    public static func fromAttributeValue(_ value: Value) -> Self? { nil }
}

extension AttributeConvertible where Self: RawRepresentable, RawValue: AttributeConvertible {
    public static var attributeType: AttributeType { RawValue.attributeType }
    public var attributeValue: Value { rawValue.attributeValue }
    public static func fromAttributeValue(_ value: Value) -> Self? {
        RawValue.fromAttributeValue(value).flatMap(Self.init(rawValue:))
    }
}

/// A stored integer as `T`, when it fits.
private func integer<T: FixedWidthInteger>(_ value: Value) -> T? {
    if case .int(let number) = value { T(exactly: number) } else { nil }
}

extension AttributeConvertible where Self: RawRepresentable & CaseIterable, RawValue: AttributeConvertible {
    public static var allowedAttributeValues: [Value]? { allCases.map(\.rawValue.attributeValue) }
}

extension Optional: AttributeConvertible where Wrapped: AttributeConvertible {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptionalAttribute: Bool { true }
    public static var allowedAttributeValues: [Value]? { Wrapped.allowedAttributeValues }
    public static var elementAttributeType: AttributeType? { Wrapped.elementAttributeType }
    public var attributeValue: Value { self?.attributeValue ?? .null }
    public static func fromAttributeValue(_ value: Value) -> Wrapped?? {
        value.isNull ? .some(nil) : Wrapped.fromAttributeValue(value).map { .some($0) }
    }
}

extension Bool: AttributeConvertible {
    public static var attributeType: AttributeType { .bool }
    public var attributeValue: Value { .bool(self) }
    public static func fromAttributeValue(_ value: Value) -> Bool? {
        if case .bool(let flag) = value { flag } else { nil }
    }
}
extension Int: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
    public static func fromAttributeValue(_ value: Value) -> Int? { integer(value) }
}
extension Int64 {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(self) }
    public static func fromAttributeValue(_ value: Value) -> Int64? { integer(value) }
}
extension Int32: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
    public static func fromAttributeValue(_ value: Value) -> Int32? { integer(value) }
}
extension Int16: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
    public static func fromAttributeValue(_ value: Value) -> Int16? { integer(value) }
}
extension Int8: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
    public static func fromAttributeValue(_ value: Value) -> Int8? { integer(value) }
}
extension UInt32: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
    public static func fromAttributeValue(_ value: Value) -> UInt32? { integer(value) }
}
extension UInt16: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
    public static func fromAttributeValue(_ value: Value) -> UInt16? { integer(value) }
}
extension UInt8: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
    public static func fromAttributeValue(_ value: Value) -> UInt8? { integer(value) }
}
extension Double: AttributeConvertible {
    public static var attributeType: AttributeType { .double }
    public var attributeValue: Value { .double(self) }
    public static func fromAttributeValue(_ value: Value) -> Double? {
        switch value {
        case .double(let number): number
        case .int(let number): Double(number)
        default: nil
        }
    }
}
extension Decimal: AttributeConvertible {
    public static var attributeType: AttributeType { .decimal }
    /// The decimal, exact (stored canonically: 1.10 as 1.1).
    public var attributeValue: Value { .decimal(self) }
    public static func fromAttributeValue(_ value: Value) -> Decimal? {
        switch value {
        case .decimal(let number): number
        case .int(let number): Decimal(number)
        default: nil
        }
    }
}
extension Float: AttributeConvertible {
    public static var attributeType: AttributeType { .double }
    public var attributeValue: Value { .double(Double(self)) }
    public static func fromAttributeValue(_ value: Value) -> Float? { Double.fromAttributeValue(value).map(Float.init) }
}
extension String {
    public static var attributeType: AttributeType { .string }
    /// The text in Unicode NFC: how every backend stores and compares it.
    public var attributeValue: Value { .string(ValueRules.nfc(self)) }
    public static func fromAttributeValue(_ value: Value) -> String? {
        if case .string(let text) = value { text } else { nil }
    }
}
extension Date: AttributeConvertible {
    public static var attributeType: AttributeType { .date }
    public var attributeValue: Value { .date(self) }
    public static func fromAttributeValue(_ value: Value) -> Date? {
        if case .date(let date) = value { date } else { nil }
    }
}
extension UUID {
    public static var attributeType: AttributeType { .uuid }
    public var attributeValue: Value { .uuid(self) }
    public static func fromAttributeValue(_ value: Value) -> UUID? {
        if case .uuid(let uuid) = value { uuid } else { nil }
    }
}
extension Data: AttributeConvertible {
    public static var attributeType: AttributeType { .data }
    public var attributeValue: Value { .data(self) }
    public static func fromAttributeValue(_ value: Value) -> Data? {
        if case .data(let data) = value { data } else { nil }
    }
}
