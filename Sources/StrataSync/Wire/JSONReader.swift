import Foundation
import Strata

/// Reads JSON text from bytes one token at a time, for wire format 2: the decoder asks for what
/// the format says comes next and builds values directly, with no intermediate tree. Every
/// malformed input — truncated, mistyped, invalid UTF-8, nested past ``maximumDepth`` — is a
/// ``Malformed`` error naming the byte offset, never a crash.
struct JSONReader {
    /// Why the text is not what the format expects, and where.
    struct Malformed: Error, CustomStringConvertible {
        var reason: String
        var offset: Int
        var description: String { "\(reason) at byte \(offset)" }
    }

    /// How deep a skipped value may nest.
    static let maximumDepth = 64

    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func fail(_ reason: String) -> Malformed { Malformed(reason: reason, offset: offset) }

    mutating func skipSpace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    /// The next significant byte, not consumed.
    mutating func peek() -> UInt8? {
        skipSpace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw fail("expected `\(Character(UnicodeScalar(byte)))`") }
        offset += 1
    }

    /// Consumes `null` when it comes next.
    mutating func readNull() throws -> Bool {
        guard peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    mutating func readBool() throws -> Bool {
        switch peek() {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        default: throw fail("expected a boolean")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count else { throw fail("truncated") }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[offset + $0] == expected[$0] }
        }
        guard matches else { throw fail("expected `\(word)`") }
        offset += count
    }

    /// An integer that fits `Int64`; a fraction or exponent is an error.
    mutating func readInt() throws -> Int64 {
        guard let first = peek() else { throw fail("expected an integer") }
        let negative = first == UInt8(ascii: "-")
        if negative { offset += 1 }
        var value: Int64 = 0
        let start = offset
        while offset < bytes.count, case let byte = bytes[offset], byte >= 0x30, byte <= 0x39 {
            let digit = Int64(byte - 0x30)
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) =
                negative ? times.subtractingReportingOverflow(digit) : times.addingReportingOverflow(digit)
            guard !overflow, !overflow2 else { throw fail("an integer out of the 64-bit range") }
            value = sum
            offset += 1
        }
        guard offset > start else { throw fail("expected an integer") }
        if offset < bytes.count, case let next = bytes[offset],
            next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E")
        {
            throw fail("expected an integer, found a fraction")
        }
        return value
    }

    /// A JSON number as the nearest double (exact for any number a writer printed in shortest form).
    mutating func readDouble() throws -> Double {
        _ = peek()
        let start = offset
        while offset < bytes.count, Self.isNumberByte(bytes[offset]) { offset += 1 }
        guard offset > start, let value = Double(try text(start..<offset, ascii: true)), value.isFinite else {
            throw fail("expected a number")
        }
        return value
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default: false
        }
    }

    mutating func readString() throws -> String {
        try expect(UInt8(ascii: "\""))
        let start = offset
        var high: UInt8 = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                defer { offset += 1 }
                return try text(start..<offset, ascii: high < 0x80)
            case UInt8(ascii: "\\"):
                return try readEscapedString(from: start)
            case 0..<0x20:
                throw fail("a control character in text")
            default:
                high |= byte
                offset += 1
            }
        }
        throw fail("unterminated text")
    }

    /// The text of `range`, validated as UTF-8 unless it is known to be ASCII.
    private func text(_ range: Range<Int>, ascii: Bool) throws -> String {
        try bytes.withUnsafeBufferPointer { buffer in
            let slice = UnsafeBufferPointer(rebasing: buffer[range])
            if ascii { return String(decoding: slice, as: UTF8.self) }
            guard let text = String(validating: slice, as: UTF8.self) else { throw fail("text that is not UTF-8") }
            return text
        }
    }

    private mutating func readEscapedString(from start: Int) throws -> String {
        var utf8 = Array(bytes[start..<offset])
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else { throw fail("text that is not UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                do {
                    offset = try JSONEscape.read(bytes, at: offset, into: &utf8)
                } catch {
                    offset = error.position
                    throw fail(error.message)
                }
            case 0..<0x20:
                throw fail("a control character in text")
            default:
                utf8.append(byte)
            }
        }
        throw fail("unterminated text")
    }

    /// Calls `element` once per element of an array.
    mutating func array(_ element: (inout JSONReader) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        if peek() == UInt8(ascii: "]") {
            offset += 1
            return
        }
        while true {
            try element(&self)
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "]"):
                offset += 1
                return
            default: throw fail("expected `,` or `]`")
            }
        }
    }

    /// Whether another element follows in an array whose `[` and at least one element were read.
    /// Consumes the `,` or `]`.
    mutating func more() throws -> Bool {
        switch peek() {
        case UInt8(ascii: "]"):
            offset += 1
            return false
        case UInt8(ascii: ","):
            offset += 1
            return true
        default:
            throw fail("expected `,` or `]`")
        }
    }

    /// Calls `member` once per member of an object, with its key.
    mutating func object(_ member: (inout JSONReader, String) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        if peek() == UInt8(ascii: "}") {
            offset += 1
            return
        }
        while true {
            let key = try readString()
            try expect(UInt8(ascii: ":"))
            try member(&self, key)
            switch peek() {
            case UInt8(ascii: ","): offset += 1
            case UInt8(ascii: "}"):
                offset += 1
                return
            default: throw fail("expected `,` or `}`")
            }
        }
    }

    /// Skips one value of any kind, and returns where it started.
    @discardableResult
    mutating func skipValue(depth: Int = 0) throws -> Int {
        guard depth < Self.maximumDepth else { throw fail("nested too deeply") }
        guard let next = peek() else { throw fail("expected a value") }
        let start = offset
        switch next {
        case UInt8(ascii: "{"): try object { reader, _ in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["): try array { reader in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "\""): _ = try readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"): _ = try readNull()
        default: _ = try readDouble()
        }
        return start
    }

    /// A reader of the same bytes at `offset` (to read a member that came before what it needs).
    func rewound(to offset: Int) -> JSONReader {
        var reader = self
        reader.offset = offset
        return reader
    }

    /// Fails unless only white space remains.
    mutating func expectEnd() throws {
        guard peek() == nil else { throw fail("text after the message") }
    }
}
