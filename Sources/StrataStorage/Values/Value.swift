import Foundation

/// The storable scalar set: everything a record attribute or a to-one reference can hold.
///
/// `Value` is the currency between the typed model layer, the engine and the storage backends.
/// Integers of every width are stored as `Int64`; `Float` as `Double`; enums as their raw value;
/// composite attributes are flattened into one `Value` per field (`address.city`).
public enum Value: Sendable, Hashable {
    /// No value.
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer.
    case int(Int64)
    /// A double (never NaN once stored).
    case double(Double)
    /// Text.
    case string(String)
    /// A date.
    case date(Date)
    /// A UUID.
    case uuid(UUID)
    /// Bytes.
    case data(Data)
    /// An exact decimal (Foundation's `Decimal`, up to 38 significant digits; canonical — see
    /// ``DecimalForm`` — and never NaN once stored).
    case decimal(Decimal)

    /// Whether this is `null`.
    @inlinable public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The attribute type this value belongs to, or `nil` for `null`.
    public var attributeType: AttributeType? {
        switch self {
        case .null: nil
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .date: .date
        case .uuid: .uuid
        case .data: .data
        case .decimal: .decimal
        }
    }

    /// The value as a `Double` when it is numeric (used for cross-kind numeric comparison).
    var numericValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}

extension Value: CustomStringConvertible {
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let value): String(value)
        case .int(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): "\"\(value)\""
        case .date(let value): value.formatted(.iso8601)
        case .uuid(let value): value.uuidString
        case .data(let value): "<\(value.count) bytes>"
        case .decimal(let value): DecimalForm.text(value)
        }
    }
}

extension Value: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(ValueRules.nfc(value)) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
}
