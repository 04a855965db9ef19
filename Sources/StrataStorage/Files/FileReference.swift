/// A file stored beside the records: the SHA-256 digest of its bytes and their count. A record
/// holds the reference (an attribute of kind ``AttributeType/file``); the bytes live once per
/// digest in the store's file space, streamed in and out in chunks and freed when the last record
/// referring to them goes.
///
/// Its stored form is canonical text, `sha256:` then the digest in 64 lowercase hexadecimal digits,
/// `:` and the size in decimal (``text``): every backend stores it as text, sync sends it as text,
/// and two references are equal exactly when their texts are.
public struct FileReference: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The SHA-256 digest of the bytes, 64 lowercase hexadecimal digits.
    public let digest: String
    /// How many bytes the file holds.
    public let size: Int64

    /// The reference with this digest and size, or `nil` when the digest is not 64 lowercase
    /// hexadecimal digits or the size is negative.
    public init?(digest: String, size: Int64) {
        guard size >= 0, Self.isDigest(digest) else { return nil }
        self.digest = digest
        self.size = size
    }

    /// The reference a stored text names, or `nil` when the text is not in the canonical form.
    public init?(text: String) {
        let parts = text.utf8.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 3, String(Substring(parts[0])) == "sha256", let digits = String(parts[2]),
            !digits.isEmpty, digits.utf8.count <= 19, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            digits == "0" || digits.utf8.first != UInt8(ascii: "0"), let size = Int64(digits),
            let digest = String(parts[1])
        else { return nil }
        self.init(digest: digest, size: size)
    }

    /// The stored form: `sha256:<digest>:<size>`.
    public var text: String { "sha256:\(digest):\(size)" }

    public var description: String { text }

    /// Whether `text` is a reference in its canonical form (what a ``AttributeType/file`` attribute accepts).
    public static func isCanonical(_ text: String) -> Bool { FileReference(text: text) != nil }

    static func isDigest(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let reference = FileReference(text: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not a file reference: \(text.prefix(100))"))
        }
        self = reference
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
