extension FileReference: AttributeConvertible {
    public static var attributeType: AttributeType { .file }
    /// The reference's canonical text (`FileReference.text`).
    public var attributeValue: Value { .string(text) }
    public static func fromAttributeValue(_ value: Value) -> FileReference? {
        if case .string(let text) = value { FileReference(text: text) } else { nil }
    }
}
