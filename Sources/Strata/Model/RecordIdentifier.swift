import Foundation

/// A Swift type usable as a model's `id`: `UUID` (the default), `String` or `Int64`.
public protocol RecordIdentifier: Hashable, Sendable, Codable, AttributeConvertible {
    /// The identifier kind stored for entities using this type.
    static var recordIDKind: RecordID.Kind { get }
    /// The identifier in untyped form.
    var recordID: RecordID { get }
    /// Recovers the typed identifier, or `nil` if `recordID` is of another kind.
    init?(recordID: RecordID)
}

extension UUID: RecordIdentifier {
    public static var recordIDKind: RecordID.Kind { .uuid }
    public var recordID: RecordID { .uuid(self) }
    public init?(recordID: RecordID) {
        guard case .uuid(let id) = recordID else { return nil }
        self = id
    }
}

extension String: RecordIdentifier {
    public static var recordIDKind: RecordID.Kind { .string }
    /// The ID in Unicode NFC, as every backend stores it.
    public var recordID: RecordID { .string(ValueRules.nfc(self)) }
    public init?(recordID: RecordID) {
        guard case .string(let id) = recordID else { return nil }
        self = id
    }
}

extension Int64: RecordIdentifier {
    public static var recordIDKind: RecordID.Kind { .int }
    public var recordID: RecordID { .int(self) }
    public init?(recordID: RecordID) {
        guard case .int(let id) = recordID else { return nil }
        self = id
    }
}
