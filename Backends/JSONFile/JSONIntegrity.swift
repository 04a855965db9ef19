import Foundation
import StrataStorage

/// CRC-32s that make damage to the JSON store's files visible, where valid-looking JSON would
/// otherwise be read back as wrong values.
///
/// - **Journal lines** (machine-written, never edited) start
///   `{"crc": "XXXXXXXX", "size": "LLLLLLLLLL KKKKKKKK", "ops": `: the CRC covers the rest of the
///   line after that header, up to its closing brace; `size` is the line's length in bytes, newline
///   included (10 digits), with a CRC of those digits. The size lets recovery tell a torn last
///   append (shorter than it declares, nothing after it) from damage that swallowed complete,
///   acknowledged saves (``JSONJournalTail``). Every line of a format 1 journal has this header;
///   a line without it, or with a size that does not match, is damage.
/// - **The document** ends `,\n  "digest": "XXXXXXXX"\n}\n`, a CRC of every byte before that
///   suffix. A document whose bytes do not match it is `corruptStore` — damaged, or edited by hand:
///   deleting the digest line accepts a hand edit (the next compaction writes a new one). A
///   document with any key beyond the five it is made of is held to a digest, so a damaged
///   `digest` key cannot turn the check off.
enum JSONIntegrity {
    static let linePrefix = Array(#"{"crc": ""#.utf8)
    static let opsPrefix = Array(#"", "ops": "#.utf8)
    static let sizePrefix = Array(#"", "size": ""#.utf8)
    /// The bytes before a line's ops with a size: `{"crc": "`, 8 hex digits, `", "size": "`,
    /// 10 digits, a space, 8 hex digits, `", "ops": `.
    static var sizedHeaderLength: Int { linePrefix.count + 8 + sizePrefix.count + 19 + opsPrefix.count }

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
        let size = String(sizedHeaderLength + ops.count + 2)
        let digits = String(repeating: "0", count: max(0, 10 - size.count)) + size
        var line = linePrefix
        line += Array(hex(crc(ops[...])).utf8)
        line += sizePrefix
        line += Array(digits.utf8) + [UInt8(ascii: " ")] + Array(hex(crc(Array(digits.utf8)[...])).utf8)
        line += opsPrefix
        line += ops
        line += Array("}\n".utf8)
        return Data(line)
    }

    /// The size a line starting at `bytes.startIndex` declares (newline included), when its header
    /// is intact up to the size and the size matches its own CRC; `nil` otherwise.
    static func declaredSize(_ bytes: ArraySlice<UInt8>) -> Int? {
        let start = bytes.startIndex
        let sizeStart = start + linePrefix.count + 8 + sizePrefix.count
        guard bytes.count >= sizeStart - start + 19, bytes.starts(with: linePrefix),
            bytes[(start + linePrefix.count + 8)...].starts(with: sizePrefix)
        else { return nil }
        let digits = bytes[sizeStart..<(sizeStart + 10)]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            bytes[sizeStart + 10] == UInt8(ascii: " "),
            let stored = UInt32(String(decoding: bytes[(sizeStart + 11)..<(sizeStart + 19)], as: UTF8.self), radix: 16),
            crc(digits) == stored, let size = Int(String(decoding: digits, as: UTF8.self))
        else { return nil }
        return size
    }

    /// Whether a journal line (without its newline) is exactly as long as it declares and matches
    /// its CRC.
    static func isIntact(line: ArraySlice<UInt8>) -> Bool {
        let start = line.startIndex
        // A line is exactly as long as it says (its newline is not in `line`).
        guard let size = declaredSize(line), size == line.count + 1 else { return false }
        let header = sizedHeaderLength
        guard line.count > header, line.last == UInt8(ascii: "}"),
            line[(start + header - opsPrefix.count)...].starts(with: opsPrefix),
            let stored = UInt32(
                String(decoding: line[(start + linePrefix.count)..<(start + linePrefix.count + 8)], as: UTF8.self),
                radix: 16)
        else { return false }
        return crc(line[(start + header)..<(line.endIndex - 1)]) == stored
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
        guard bodyEnd >= 0, bytes[bodyEnd...].starts(with: digestStart),
            bytes.suffix(digestEnd.count).elementsEqual(digestEnd),
            let stored = UInt32(
                String(
                    decoding: bytes[(bodyEnd + digestStart.count)..<(bodyEnd + digestStart.count + 8)], as: UTF8.self),
                radix: 16),
            crc(bytes[..<bodyEnd]) == stored
        else {
            throw StrataError(
                .corruptStore,
                "\(path) does not match its digest: it is damaged, or was edited by hand (to accept a hand edit, "
                    + "delete its \"digest\" line)"
            )
        }
    }
}
