import Foundation

/// A JSON reader whose numbers are exact: Foundation's `JSONSerialization` on Linux reads
/// `-0.13000000000000075` as `-0.13000000000000067`, so a double written in Swift's shortest
/// round-trip form did not come back bit for bit. Numbers here go through `Int64` (integers that
/// fit) or Swift's own `Double(_:)` parser (correctly rounded).
///
/// The result has `JSONSerialization`'s shapes, so readers of either work unchanged: objects are
/// `[String: Any]`, arrays `[Any]`, strings `String`, `true`/`false` `Bool`, numbers `NSNumber`,
/// `null` `NSNull`. Used by the JSON file backend and by the NDJSON tools.
public enum ExactJSON {
    /// Where and why the text is not JSON.
    public struct SyntaxError: Error, CustomStringConvertible, Sendable {
        /// The byte offset of the error.
        public var offset: Int
        /// What is wrong there.
        public var reason: String
        public var description: String { "not JSON at byte \(offset): \(reason)" }
    }

    /// The value of one JSON text (an object, an array or a scalar, with optional whitespace around).
    public static func parse(_ data: Data) throws -> Any {
        try data.withUnsafeBytes { raw in
            try parse(UnsafeBufferPointer(start: raw.bindMemory(to: UInt8.self).baseAddress, count: raw.count))
        }
    }

    /// The value of one JSON text given as its UTF-8 bytes.
    public static func parse(_ text: some StringProtocol) throws -> Any {
        var text = String(text)
        return try text.withUTF8 { try parse($0) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Any {
        var reader = Reader(bytes: bytes)
        reader.skipSpace()
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.position == bytes.count else { throw reader.fail("text after the value") }
        return value
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0
        /// Deeper nesting is refused rather than risking the stack on hostile input.
        static let maximumDepth = 512

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        func fail(_ reason: String) -> SyntaxError { SyntaxError(offset: position, reason: reason) }

        var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipSpace() {
            while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
        }

        mutating func value(depth: Int) throws -> Any {
            guard depth < Self.maximumDepth else { throw fail("nested deeper than \(Self.maximumDepth)") }
            switch current {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return try string()
            case UInt8(ascii: "t"):
                try literal("true")
                return true
            case UInt8(ascii: "f"):
                try literal("false")
                return false
            case UInt8(ascii: "n"):
                try literal("null")
                return NSNull()
            case .some(let byte) where byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39): return try number()
            case nil: throw fail("the text ends where a value should be")
            default: throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws {
            let count = word.utf8CodeUnitCount
            guard position + count <= bytes.count else { throw fail("the text ends inside \(word)") }
            for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
                throw fail("expected \(word)")
            }
            position += count
        }

        mutating func object(depth: Int) throws -> [String: Any] {
            position += 1
            var result: [String: Any] = [:]
            skipSpace()
            if current == UInt8(ascii: "}") {
                position += 1
                return result
            }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw fail("expected a key") }
                let key = try string()
                skipSpace()
                guard current == UInt8(ascii: ":") else { throw fail("expected ':'") }
                position += 1
                skipSpace()
                result[key] = try value(depth: depth + 1)
                skipSpace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"):
                    position += 1
                    return result
                default: throw fail("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws -> [Any] {
            position += 1
            var result: [Any] = []
            skipSpace()
            if current == UInt8(ascii: "]") {
                position += 1
                return result
            }
            while true {
                skipSpace()
                result.append(try value(depth: depth + 1))
                skipSpace()
                switch current {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"):
                    position += 1
                    return result
                default: throw fail("expected ',' or ']'")
                }
            }
        }

        mutating func number() throws -> NSNumber {
            let start = position
            var isInteger = true
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, first >= 0x30, first <= 0x39 else { throw fail("a number needs a digit") }
            while let byte = current {
                if byte >= 0x30 && byte <= 0x39 {
                    position += 1
                } else if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                    || byte == UInt8(ascii: "+")
                    || (byte == UInt8(ascii: "-") && position > start)
                {
                    isInteger = false
                    position += 1
                } else {
                    break
                }
            }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            if isInteger, let integer = Int64(text) { return NSNumber(value: integer) }
            guard let double = Double(text), double.isFinite else {
                position = start
                throw fail("\(text) is not a JSON number")
            }
            return NSNumber(value: double)
        }

        mutating func string() throws -> String {
            position += 1
            let start = position
            // The common case: no escapes, one slice.
            while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                guard byte >= 0x20 else { throw fail("a control character inside a string") }
                position += 1
            }
            guard current != nil else { throw fail("the text ends inside a string") }
            var scalars = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<position]))
            while let byte = current {
                position += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: scalars, as: UTF8.self) else {
                        position = start
                        throw fail("a string that is not UTF-8")
                    }
                    return text
                case UInt8(ascii: "\\"):
                    do {
                        position = try JSONEscape.read(bytes, at: position, into: &scalars)
                    } catch {
                        position = error.position
                        throw fail(error.message)
                    }
                default:
                    guard byte >= 0x20 else { throw fail("a control character inside a string") }
                    scalars.append(byte)
                }
            }
            throw fail("the text ends inside a string")
        }

    }
}
