import Foundation

/// The stored form of a ``HistoryTransaction``: compact, versioned binary (history is written on
/// every save, so its encoding is on the hot path; JSON was half the cost of a large save).
///
/// Layout (format 1): `0x01`, token (i64), timestamp (f64 bits), author, context name (optional
/// strings), change count, then per change: kind (u8), entity, ID, version (i64), property count
/// and names. Integers are little-endian varints (zigzag for signed); strings are length-prefixed UTF-8.
enum HistoryCodec {
    static let formatVersion: UInt8 = 1

    static func encode(_ entry: HistoryTransaction) -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(32 + entry.changes.count * 64)
        writer.byte(formatVersion)
        writer.signed(entry.token.value)
        writer.unsigned(entry.timestamp.timeIntervalSince1970.bitPattern)
        writer.optionalString(entry.author)
        writer.optionalString(entry.contextName)
        writer.unsigned(UInt64(entry.changes.count))
        for change in entry.changes {
            writer.byte(change.kind == .insert ? 0 : change.kind == .update ? 1 : 2)
            writer.string(change.entity)
            writer.recordID(change.id)
            writer.signed(change.version)
            writer.unsigned(UInt64(change.changedProperties.count))
            for name in change.changedProperties { writer.string(name) }
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> HistoryTransaction {
        var reader = ByteReader(bytes)
        guard try reader.byte() == formatVersion else {
            throw StrataError(.incompatibleStore, "history entry has an unknown format version")
        }
        let token = HistoryToken(try reader.signed())
        let timestamp = Date(timeIntervalSince1970: Double(bitPattern: try reader.unsigned()))
        let author = try reader.optionalString()
        let contextName = try reader.optionalString()
        let count = try reader.count()
        var changes: [HistoryChange] = []
        changes.reserveCapacity(count)
        for _ in 0..<count {
            let kind: HistoryChange.Kind
            switch try reader.byte() {
            case 0: kind = .insert
            case 1: kind = .update
            case 2: kind = .delete
            default: throw reader.corrupt("unknown change kind")
            }
            let entity = try reader.string()
            let id = try reader.recordID()
            let version = try reader.signed()
            let names = try (0..<reader.count()).map { _ in try reader.string() }
            changes.append(HistoryChange(kind: kind, entity: entity, id: id, changedProperties: names, version: version))
        }
        return HistoryTransaction(token: token, timestamp: timestamp, author: author, contextName: contextName, changes: changes)
    }
}

/// Appends varints, strings and IDs to a byte buffer.
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func signed(_ value: Int64) { unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

    mutating func string(_ value: String) {
        var text = value
        text.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optionalString(_ value: String?) {
        guard let value else { return byte(0) }
        byte(1)
        string(value)
    }

    mutating func recordID(_ id: RecordID) {
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

/// Reads what ``ByteWriter`` wrote; any truncation or malformed byte is ``StrataError/Code/corruptStore``.
struct ByteReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func corrupt(_ what: String) -> StrataError {
        StrataError(.corruptStore, "\(what) at byte \(position)")
    }

    mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw corrupt("unexpected end of data") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func unsigned() throws -> UInt64 {
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

    mutating func signed() throws -> Int64 {
        let raw = try unsigned()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func count() throws -> Int {
        let value = try unsigned()
        guard value <= UInt64(bytes.count - position) * 8 + 64 else { throw corrupt("implausible count \(value)") }
        return Int(value)
    }

    mutating func string() throws -> String {
        let length = try count()
        guard length <= bytes.count - position else { throw corrupt("string runs past the end") }
        defer { position += length }
        return String(decoding: bytes[position..<(position + length)], as: UTF8.self)
    }

    mutating func optionalString() throws -> String? {
        try byte() == 0 ? nil : try string()
    }

    mutating func recordID() throws -> RecordID {
        switch try byte() {
        case 0:
            guard bytes.count - position >= 16 else { throw corrupt("UUID runs past the end") }
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes[position..<(position + 16)]) }
            position += 16
            return .uuid(UUID(uuid: raw))
        case 1: return .string(try string())
        case 2: return .int(try signed())
        default: throw corrupt("unknown ID kind")
        }
    }
}
