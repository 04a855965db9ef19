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
    /// The elements of an array or a set attribute (a set's are canonical: sorted by ``sortOrder(_:_:)``
    /// and without duplicates — see ``ValueRules``). Elements are scalars, never null.
    case array([Value])
    /// A dictionary attribute: text keys (NFC) to scalar values, never null.
    case dictionary([String: Value])
    /// A document attribute: one `Codable` value as canonical JSON text (object keys sorted, no
    /// insignificant space).
    case document(String)

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
        case .array: .array
        case .dictionary: .dictionary
        case .document: .document
        }
    }

    /// Whether this is a scalar: not an array, a dictionary or a document.
    public var isScalar: Bool {
        switch self {
        case .array, .dictionary, .document: false
        default: true
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
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let entries):
            "[" + entries.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "]"
        case .document(let text): text
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
