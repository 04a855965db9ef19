import Foundation

/// UUID text without Foundation's `printf`/`scanf` round trip (most of a UUID's cost on the wire):
/// written uppercase `8-4-4-4-12` as `uuidString` writes it, read in either case.
enum WireUUID {
    private static let digits = Array("0123456789ABCDEF".utf8)

    static func text(_ uuid: UUID) -> String {
        withUnsafeBytes(of: uuid.uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { output in
                var at = 0
                for (index, byte) in raw.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    output[at] = digits[Int(byte >> 4)]
                    output[at + 1] = digits[Int(byte & 0x0F)]
                    at += 2
                }
                return at
            }
        }
    }

    static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { utf8 -> UUID? in
            guard utf8.count == 36 else { return nil }
            var bytes = [UInt8](repeating: 0, count: 16)
            var at = 0
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard utf8[at] == UInt8(ascii: "-") else { return nil }
                    at += 1
                }
                guard let high = nibble(utf8[at]), let low = nibble(utf8[at + 1]) else { return nil }
                bytes[index] = high << 4 | low
                at += 2
            }
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 0x30
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 0x61 + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 0x41 + 10
        default: nil
        }
    }
}
