import Foundation

/// Appends varints, strings, IDs and values to a byte buffer: the building block for compact binary
/// formats (history, and backends that store records as bytes).
public struct BinaryWriter {
    /// The bytes written so far.
    public var bytes: [UInt8] = []

    /// An empty writer.
    public init() {}

    /// Appends one byte.
    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// Appends an unsigned LEB128 varint.
    public mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Appends a zigzag-encoded signed varint.
    public mutating func signed(_ value: Int64) { unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    /// Appends UTF-8 text with its length.
    public mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Appends a presence byte, then the text when present.
    public mutating func optionalString(_ value: String?) {
        guard let value else { return byte(0) }
        byte(1)
        string(value)
    }

    /// A tagged value: one byte of kind, then its payload.
    public mutating func value(_ value: Value) {
        switch value {
        case .null: byte(0)
        case .bool(let flag): byte(flag ? 2 : 1)
        case .int(let number):
            byte(3)
            signed(number)
        case .double(let number):
            byte(4)
            unsigned(number.bitPattern)
        case .string(let text):
            byte(5)
            string(text)
        case .date(let date):
            byte(6)
            unsigned(date.timeIntervalSinceReferenceDate.bitPattern)
        case .uuid(let uuid):
            byte(7)
            withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
        case .data(let data):
            byte(8)
            unsigned(UInt64(data.count))
            bytes.append(contentsOf: data)
        case .decimal(let number):
            byte(9)
            string(DecimalForm.text(number))
        case .array(let elements):
            byte(10)
            unsigned(UInt64(elements.count))
            for element in elements { self.value(element) }
        case .dictionary(let entries):
            byte(11)
            unsigned(UInt64(entries.count))
            for key in entries.keys.sorted() {
                string(key)
                self.value(entries[key] ?? .null)
            }
        case .document(let text):
            byte(12)
            string(text)
        }
    }

    /// Appends an ID with its kind.
    public mutating func recordID(_ id: RecordID) {
        switch id {
        case .uuid(let uuid):
            byte(0)
            withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
        case .string(let text):
            byte(1)
            string(text)
        case .int(let number):
            byte(2)
            signed(number)
        }
    }
}

/// Reads what ``BinaryWriter`` wrote; any truncation or malformed byte is ``StrataError/Code/corruptStore``.
public struct BinaryReader {
    /// The bytes read.
    public let bytes: [UInt8]
    /// The offset of the next byte.
    public var position = 0

    /// A reader at the start of `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { position >= bytes.count }

    /// The error for bytes that are not what was expected here.
    public func corrupt(_ what: String) -> StrataError {
        StrataError(.corruptStore, "\(what) at byte \(position)")
    }

    /// Reads one byte.
    public mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw corrupt("unexpected end of data") }
        defer { position += 1 }
        return bytes[position]
    }

    /// Reads an unsigned varint.
    public mutating func unsigned() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let next = try byte()
            guard shift < 64 else { throw corrupt("varint too long") }
            result |= UInt64(next & 0x7F) << shift
            if next < 0x80 { return result }
            shift += 7
        }
    }

    /// Reads a zigzag-encoded signed varint.
    public mutating func signed() throws -> Int64 {
        let raw = try unsigned()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// Reads a count (a varint no larger than the bytes left).
    public mutating func count() throws -> Int {
        let value = try unsigned()
        guard value <= UInt64(bytes.count - position) * 8 + 64 else { throw corrupt("implausible count \(value)") }
        return Int(value)
    }

    /// Reads text written by ``BinaryWriter/string(_:)``.
    public mutating func string() throws -> String {
        let length = try count()
        guard length <= bytes.count - position else { throw corrupt("string runs past the end") }
        defer { position += length }
        return String(decoding: bytes[position..<(position + length)], as: UTF8.self)
    }

    /// Reads text written by ``BinaryWriter/optionalString(_:)``.
    public mutating func optionalString() throws -> String? {
        try byte() == 0 ? nil : try string()
    }

    /// Reads a value written by ``BinaryWriter/value(_:)``.
    public mutating func value() throws -> Value {
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .int(try signed())
        case 4: return .double(Double(bitPattern: try unsigned()))
        case 5: return .string(try string())
        case 6: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try unsigned())))
        case 7: return .uuid(try uuid())
        case 8:
            let length = try count()
            guard length <= bytes.count - position else { throw corrupt("data runs past the end") }
            defer { position += length }
            return .data(Data(bytes[position..<(position + length)]))
        case 9:
            let text = try string()
            guard let number = DecimalForm.parse(text) else { throw corrupt("\(text) is not a decimal") }
            return .decimal(number)
        case 10:
            let count = try count()
            var elements: [Value] = []
            elements.reserveCapacity(min(count, bytes.count - position))
            for _ in 0..<count { elements.append(try element()) }
            return .array(elements)
        case 11:
            let count = try count()
            var entries: [String: Value] = [:]
            for _ in 0..<count {
                let key = try string()
                entries[key] = try element()
            }
            return .dictionary(entries)
        case 12:
            return .document(try string())
        default: throw corrupt("unknown value kind")
        }
    }

    /// A collection's element: a scalar (a nested collection is damage, and never recursed into).
    private mutating func element() throws -> Value {
        let start = position
        guard let kind = try? byte(), kind < 10 else { throw corrupt("a collection element is not a scalar") }
        position = start
        return try value()
    }

    /// Reads 16 bytes as a UUID.
    public mutating func uuid() throws -> UUID {
        guard bytes.count - position >= 16 else { throw corrupt("UUID runs past the end") }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes[position..<(position + 16)]) }
        position += 16
        return UUID(uuid: raw)
    }

    /// Reads an ID written by ``BinaryWriter/recordID(_:)``.
    public mutating func recordID() throws -> RecordID {
        switch try byte() {
        case 0: return .uuid(try uuid())
        case 1: return .string(try string())
        case 2: return .int(try signed())
        default: throw corrupt("unknown ID kind")
        }
    }
}
