import Foundation

/// CRC-32 (the IEEE polynomial, reflected — as zlib, PNG and Ethernet use it), table-driven. It
/// guards stored records: a flipped bit, a torn page or a record read under another key changes
/// it, so a damaged record is reported instead of read back with wrong values.
///
/// Every read verifies one, so the byte loop runs over raw buffers and is inlinable into the
/// backends that call it.
public struct Checksum: Sendable {
    @usableFromInline var crc: UInt32 = 0xFFFF_FFFF

    /// A checksum over no bytes.
    public init() {}

    /// Slicing-by-8 tables: `table[k * 256 + i]` is the CRC of byte `i` followed by `k` zero
    /// bytes, so eight bytes are folded in with eight lookups instead of eight dependent steps.
    @usableFromInline static let table: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var crc = UInt32(index)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            table[index] = crc
        }
        for slice in 1..<8 {
            for index in 0..<256 {
                let previous = table[(slice - 1) * 256 + index]
                table[slice * 256 + index] = (previous >> 8) ^ table[Int(previous & 0xFF)]
            }
        }
        return table
    }()

    /// Adds the bytes of a buffer.
    @inlinable
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        var crc = self.crc
        Self.table.withUnsafeBufferPointer { table in
            var offset = 0
            let count = buffer.count
            while offset + 8 <= count {
                let low = crc ^ UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                let high = UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                crc =
                    table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                offset += 8
            }
            while offset < count {
                crc = table[Int((crc ^ UInt32(buffer[offset])) & 0xFF)] ^ (crc >> 8)
                offset += 1
            }
        }
        self.crc = crc
    }

    /// Adds one byte.
    @inlinable
    public mutating func update(byte: UInt8) {
        crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
    }

    /// Adds eight bytes, little-endian.
    @inlinable
    public mutating func update(word: UInt64) {
        withUnsafeBytes(of: word.littleEndian) { update($0) }
    }

    /// Adds the bytes.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds the bytes.
    public mutating func update(_ bytes: ArraySlice<UInt8>) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds a value in a form that depends only on the value (the same whatever a backend's
    /// storage class): a kind byte, then its bits or bytes; text and bytes with their length.
    @inlinable
    public mutating func update(_ value: Value) {
        switch value {
        case .null: update(byte: 0)
        case .bool(let flag):
            update(byte: 1)
            update(byte: flag ? 1 : 0)
        case .int(let number):
            update(byte: 2)
            update(word: UInt64(bitPattern: number))
        case .double(let number):
            update(byte: 3)
            update(word: number.bitPattern)
        case .string(var text):
            update(byte: 4)
            text.withUTF8 { utf8 in
                update(word: UInt64(utf8.count))
                update(UnsafeRawBufferPointer(utf8))
            }
        case .date(let date):
            update(byte: 5)
            update(word: date.timeIntervalSinceReferenceDate.bitPattern)
        case .uuid(let uuid):
            update(byte: 6)
            withUnsafeBytes(of: uuid.uuid) { update($0) }
        case .data(let bytes):
            update(byte: 7)
            update(word: UInt64(bytes.count))
            bytes.withUnsafeBytes { update($0) }
        case .decimal(let number):
            update(byte: 8)
            var text = DecimalForm.text(number)
            text.withUTF8 { utf8 in
                update(word: UInt64(utf8.count))
                update(UnsafeRawBufferPointer(utf8))
            }
        case .array, .dictionary, .document:
            updateCollection(value)
        }
    }

    /// Arrays, dictionaries and documents by their canonical JSON text, after a kind byte each.
    @usableFromInline
    mutating func updateCollection(_ value: Value) {
        switch value {
        case .array: update(byte: 9)
        case .dictionary: update(byte: 10)
        default: update(byte: 11)
        }
        var text = CollectionForm.text(value) ?? ""
        text.withUTF8 { utf8 in
            update(word: UInt64(utf8.count))
            update(UnsafeRawBufferPointer(utf8))
        }
    }

    /// The start of a record's checksum as backends that store columns keep it: its ID and its
    /// version; the caller then adds each stored property's value in the entity's declared order
    /// (as it writes or decodes them, so the values are walked once).
    @inlinable
    public static func record(id: RecordID, version: Int64) -> Checksum {
        var checksum = Checksum()
        checksum.update(id.value)
        checksum.update(.int(version))
        return checksum
    }

    /// The finished checksum.
    @inlinable public var final: UInt32 { crc ^ 0xFFFF_FFFF }

}
