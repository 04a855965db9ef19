/// The storable attribute kinds. Integers of every width are `int` (64-bit); enums use their raw value's kind.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    /// `Bool`.
    case bool
    /// Integers, stored as `Int64`.
    case int
    /// `Double` and `Float`.
    case double
    /// Text, in Unicode NFC.
    case string
    /// `Date`, bit for bit.
    case date
    /// `UUID`.
    case uuid
    /// Bytes.
    case data
    /// `Decimal`, exact: stored canonically (1.10 as 1.1), compared and sorted numerically.
    case decimal

    /// Whether `value` (non-null) is acceptable for this type. An `int` is accepted for `double`.
    public func accepts(_ value: Value) -> Bool {
        switch (self, value) {
        case (.bool, .bool), (.int, .int), (.double, .double), (.double, .int), (.string, .string),
            (.date, .date), (.uuid, .uuid), (.data, .data), (.decimal, .decimal):
            true
        default:
            false
        }
    }
}
