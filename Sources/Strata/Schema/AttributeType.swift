/// The storable attribute kinds. Integers of every width are `int` (64-bit); enums use their raw value's kind.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    case bool, int, double, string, date, uuid, data

    /// Whether `value` (non-null) is acceptable for this type. An `int` is accepted for `double`.
    public func accepts(_ value: Value) -> Bool {
        switch (self, value) {
        case (.bool, .bool), (.int, .int), (.double, .double), (.double, .int), (.string, .string),
            (.date, .date), (.uuid, .uuid), (.data, .data):
            true
        default:
            false
        }
    }
}
