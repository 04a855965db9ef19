/// Reading a JSON string's escapes, shared by the readers that take JSON apart byte by byte
/// (documents' exact JSON, and the sync wire's format 2).
package enum JSONEscape {
    /// Reads the escape whose backslash is just before `position` — a letter, or `u` with four hex
    /// digits (and a low surrogate's `\uXXXX` after a high one) — appending its UTF-8 to `output`.
    /// Returns the position after it, or throws `Problem` naming what is wrong.
    package static func read<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, at position: Int, into output: inout [UInt8]
    ) throws(Problem) -> Int where Bytes.Index == Int {
        guard position < bytes.endIndex else { throw Problem("the text ends inside an escape", at: position) }
        let letter = bytes[position]
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output.append(letter)
        case UInt8(ascii: "b"): output.append(0x08)
        case UInt8(ascii: "f"): output.append(0x0C)
        case UInt8(ascii: "n"): output.append(0x0A)
        case UInt8(ascii: "r"): output.append(0x0D)
        case UInt8(ascii: "t"): output.append(0x09)
        case UInt8(ascii: "u"): return try unicode(bytes, at: position + 1, into: &output)
        default: throw Problem("an unknown escape", at: position + 1)
        }
        return position + 1
    }

    /// A `\u` escape's code point (after the `u`), joining a surrogate pair.
    private static func unicode<Bytes: RandomAccessCollection<UInt8>>(
        _ bytes: Bytes, at start: Int, into output: inout [UInt8]
    ) throws(Problem) -> Int where Bytes.Index == Int {
        var code = try hex4(bytes, at: start)
        var position = start + 4
        if (0xD800..<0xDC00).contains(code) {
            guard position + 1 < bytes.endIndex, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else { throw Problem("a lone high surrogate", at: position) }
            let low = try hex4(bytes, at: position + 2)
            guard (0xDC00..<0xE000).contains(low) else {
                throw Problem("a high surrogate without its low half", at: position + 6)
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
            position += 6
        } else if (0xDC00..<0xE000).contains(code) {
            throw Problem("a lone low surrogate", at: position)
        }
        guard let scalar = Unicode.Scalar(code) else { throw Problem("an escape that is no character", at: position) }
        output.append(contentsOf: String(Character(scalar)).utf8)
        return position
    }

    private static func hex4<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at start: Int) throws(Problem)
        -> UInt32 where Bytes.Index == Int
    {
        guard start + 4 <= bytes.endIndex else { throw Problem("the text ends inside a \\u escape", at: start) }
        var code: UInt32 = 0
        for (offset, byte) in bytes[start..<start + 4].enumerated() {
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw Problem("a \\u escape needs four hex digits", at: start + offset)
            }
            code = code << 4 | digit
        }
        return code
    }

    /// What is wrong with an escape, in words.
    package struct Problem: Error {
        package let message: String
        /// Where in the bytes the problem was found.
        package let position: Int
        init(_ message: String, at position: Int) { (self.message, self.position) = (message, position) }
    }
}
