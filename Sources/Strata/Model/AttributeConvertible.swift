import Foundation

/// A Swift type that stores as one attribute ``Value``: the scalars, their optionals, and enums
/// with a raw value (declare `extension Status: AttributeConvertible {}`; add `CaseIterable` and the
/// schema also rejects raw values that are not a case).
public protocol AttributeConvertible: Sendable {
    /// The stored kind.
    static var attributeType: AttributeType { get }
    /// Whether `nil` is a valid value (true for `Optional`).
    static var isOptionalAttribute: Bool { get }
    /// For enums: the raw values of every case.
    static var allowedAttributeValues: [Value]? { get }
    /// The stored form of this value.
    var attributeValue: Value { get }
}

extension AttributeConvertible {
    public static var isOptionalAttribute: Bool { false }
    public static var allowedAttributeValues: [Value]? { nil }
}

extension AttributeConvertible where Self: RawRepresentable, RawValue: AttributeConvertible {
    public static var attributeType: AttributeType { RawValue.attributeType }
    public var attributeValue: Value { rawValue.attributeValue }
}

extension AttributeConvertible where Self: RawRepresentable & CaseIterable, RawValue: AttributeConvertible {
    public static var allowedAttributeValues: [Value]? { allCases.map(\.rawValue.attributeValue) }
}

extension Optional: AttributeConvertible where Wrapped: AttributeConvertible {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public static var isOptionalAttribute: Bool { true }
    public static var allowedAttributeValues: [Value]? { Wrapped.allowedAttributeValues }
    public var attributeValue: Value { self?.attributeValue ?? .null }
}

extension Bool: AttributeConvertible {
    public static var attributeType: AttributeType { .bool }
    public var attributeValue: Value { .bool(self) }
}
extension Int: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
}
extension Int64 {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(self) }
}
extension Int32: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
}
extension Int16: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
}
extension Int8: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
}
extension UInt32: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
}
extension UInt16: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
}
extension UInt8: AttributeConvertible {
    public static var attributeType: AttributeType { .int }
    public var attributeValue: Value { .int(Int64(self)) }
}
extension Double: AttributeConvertible {
    public static var attributeType: AttributeType { .double }
    public var attributeValue: Value { .double(self) }
}
extension Float: AttributeConvertible {
    public static var attributeType: AttributeType { .double }
    public var attributeValue: Value { .double(Double(self)) }
}
extension String {
    public static var attributeType: AttributeType { .string }
    /// The text in Unicode NFC: how every backend stores and compares it.
    public var attributeValue: Value { .string(ValueRules.nfc(self)) }
}
extension Date: AttributeConvertible {
    public static var attributeType: AttributeType { .date }
    public var attributeValue: Value { .date(self) }
}
extension UUID {
    public static var attributeType: AttributeType { .uuid }
    public var attributeValue: Value { .uuid(self) }
}
extension Data: AttributeConvertible {
    public static var attributeType: AttributeType { .data }
    public var attributeValue: Value { .data(self) }
}
