import Foundation
import Strata

/// CRC-32s that make damage to the JSON store's files visible, where valid-looking JSON would
/// otherwise be read back as wrong values.
///
/// - **Journal lines** (machine-written, never edited) start `{"crc": "XXXXXXXX", "ops": ` and the
///   CRC covers the rest of the line after that prefix, up to its closing brace. Lines without the
///   prefix (journals written by earlier releases) are read unchecked — only when they are exactly
///   `{"ops": […]}`, so damage to the prefix cannot turn the check off.
/// - **The document** ends `,\n  "digest": "XXXXXXXX"\n}\n`, a CRC of every byte before that
///   suffix. A document whose bytes do not match it is `corruptStore` — damaged, or edited by hand:
///   deleting the digest line accepts a hand edit (the next compaction writes a new one). A
///   document with any key beyond the five it is made of is held to a digest, so a damaged
///   `digest` key cannot turn the check off.
enum JSONIntegrity {
    static let linePrefix = Array(#"{"crc": ""#.utf8)
    static let opsPrefix = Array(#"", "ops": "#.utf8)
    /// The bytes before a line's ops: `{"crc": "`, 8 hex digits, `", "ops": `.
    static var lineHeaderLength: Int { linePrefix.count + 8 + opsPrefix.count }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    static func crc(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var checksum = Checksum()
        checksum.update(bytes)
        return checksum.final
    }

    /// A journal line for the ops text `ops` (a JSON array), newline included.
    static func journalLine(ops: [UInt8]) -> Data {
        var line = linePrefix
        line += Array(hex(crc(ops[...])).utf8)
        line += opsPrefix
        line += ops
        line += Array("}\n".utf8)
        return Data(line)
    }

    enum LineCheck { case unchecked, valid, damaged }

    /// Whether a journal line (without its newline) carries a CRC, and whether it holds.
    static func check(line: ArraySlice<UInt8>) -> LineCheck {
        guard line.starts(with: linePrefix) else { return .unchecked }
        let start = line.startIndex
        guard line.count > lineHeaderLength, line.last == UInt8(ascii: "}"),
            line[(start + linePrefix.count + 8)...].starts(with: opsPrefix),
            let stored = UInt32(String(decoding: line[(start + linePrefix.count)..<(start + linePrefix.count + 8)], as: UTF8.self), radix: 16)
        else { return .damaged }
        return crc(line[(start + lineHeaderLength)..<(line.endIndex - 1)]) == stored ? .valid : .damaged
    }

    static let digestStart = Array(",\n  \"digest\": \"".utf8)
    static let digestEnd = Array("\"\n}\n".utf8)

    /// The document's closing: its digest over `body` (everything before it), then the final brace.
    static func closing(body: [UInt8]) -> [UInt8] {
        digestStart + Array(hex(crc(body[...])).utf8) + digestEnd
    }

    /// Throws `corruptStore` when a document that declares a digest does not match it.
    static func checkDigest(_ data: Data, declared: Bool, path: String) throws {
        guard declared else { return }
        let bytes = [UInt8](data)
        let suffix = digestStart.count + 8 + digestEnd.count
        let bodyEnd = bytes.count - suffix
        guard bodyEnd >= 0, bytes[bodyEnd...].starts(with: digestStart), bytes.suffix(digestEnd.count).elementsEqual(digestEnd),
            let stored = UInt32(String(decoding: bytes[(bodyEnd + digestStart.count)..<(bodyEnd + digestStart.count + 8)], as: UTF8.self), radix: 16),
            crc(bytes[..<bodyEnd]) == stored
        else {
            throw StrataError(.corruptStore, "\(path) does not match its digest: it is damaged, or was edited by hand (to accept a hand edit, delete its \"digest\" line)")
        }
    }
}
