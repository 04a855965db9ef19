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
    /// An array of scalars (`[String]`, `[Int]`, …): order and duplicates kept. The element kind is
    /// the attribute's ``AttributeDescription/element``.
    case array
    /// A set of scalars (`Set<String>`, …): stored sorted, without duplicates.
    case set
    /// A dictionary from text to scalars (`[String: Int]`, …).
    case dictionary
    /// A document: one `Codable` value stored as canonical JSON text.
    case document
    /// A file stored beside the records (``FileReference``): the record holds the canonical
    /// reference text; the bytes live in the store's file space, content-addressed.
    case file

    /// Whether values of this type are scalars (every type but the collections and documents).
    public var isScalar: Bool {
        switch self {
        case .array, .set, .dictionary, .document: false
        default: true
        }
    }

    /// Whether values of this type hold elements (arrays, sets and dictionaries).
    public var isCollection: Bool {
        switch self {
        case .array, .set, .dictionary: true
        default: false
        }
    }

    /// Whether `value` (non-null) is acceptable for this type. An `int` is accepted for `double`.
    public func accepts(_ value: Value) -> Bool {
        switch (self, value) {
        case (.bool, .bool), (.int, .int), (.double, .double), (.double, .int), (.string, .string),
            (.date, .date), (.uuid, .uuid), (.data, .data), (.decimal, .decimal), (.array, .array), (.set, .array),
            (.dictionary, .dictionary), (.document, .document):
            true
        case (.file, .string(let text)):
            FileReference.isCanonical(text)
        default:
            false
        }
    }
}
