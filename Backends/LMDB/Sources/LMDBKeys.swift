import Foundation
import StrataStorage

/// Order-preserving byte encodings: LMDB sorts keys with memcmp, so encoded keys sort exactly as
/// the contract orders their values (IDs ascending, numbers numerically, text by Unicode scalars).
enum LMDBKeys {
    /// Whether key `a` sorts before key `b` in LMDB's default order (bytes compared as unsigned,
    /// a prefix first): `memcmp` over the common length, where the generic
    /// `lexicographicallyPrecedes` compared element by element (a quarter of a set delete's time).
    static func precedes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let common = min(a.count, b.count)
        let order = a.withUnsafeBufferPointer { left in
            b.withUnsafeBufferPointer { right -> Int32 in
                guard common > 0, let l = left.baseAddress, let r = right.baseAddress else { return 0 }
                return memcmp(l, r, common)
            }
        }
        return order != 0 ? order < 0 : a.count < b.count
    }

    /// LMDB's default maximum key (and DUPSORT value) size is 511 bytes.
    static let maximumTextKey = 480

    static func id(_ id: RecordID) throws -> [UInt8] {
        switch id {
        case .uuid(let uuid): return withUnsafeBytes(of: uuid.uuid) { Array($0) }
        case .int(let number): return bigEndian(UInt64(bitPattern: number) ^ (1 << 63))
        case .string(let text):
            let bytes = Array(text.utf8)
            // LMDB cannot key on zero bytes (MDB_BAD_VALSIZE): the engine refuses empty IDs.
            guard !bytes.isEmpty else {
                throw StrataError(.validationFailed, recordID: id, property: "id", "a string ID may not be empty")
            }
            guard bytes.count <= maximumTextKey else {
                throw StrataError(
                    .validationFailed, recordID: id, property: "id",
                    "an ID longer than \(maximumTextKey) UTF-8 bytes cannot be an LMDB key")
            }
            return bytes
        }
    }

    /// The key of an ID being looked up, or `nil` for a string ID empty or too long to be a key — no
    /// record can have one (the engine refuses such IDs on insert), so the lookup finds nothing.
    static func lookupID(_ id: RecordID) -> [UInt8]? {
        if case .string(let text) = id, text.isEmpty || text.utf8.count > maximumTextKey { return nil }
        return try? self.id(id)
    }

    static func decodeID(_ bytes: [UInt8], kind: RecordID.Kind) throws -> RecordID {
        switch kind {
        case .uuid:
            guard bytes.count == 16 else {
                throw StrataError(.corruptStore, "a stored UUID key has \(bytes.count) bytes")
            }
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes) }
            return .uuid(UUID(uuid: raw))
        case .int:
            guard bytes.count == 8 else {
                throw StrataError(.corruptStore, "a stored integer key has \(bytes.count) bytes")
            }
            return .int(Int64(bitPattern: bytes.reduce(0) { $0 << 8 | UInt64($1) } ^ (1 << 63)))
        case .string:
            return .string(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The index key of a value: `[0]` for null (so an ordered walk of the index meets nulls first,
    /// as the contract sorts them), otherwise `1` followed by the value's order-preserving bytes.
    /// Text and bytes longer than the key limit are cut: such keys only narrow candidates, and
    /// every candidate is checked against the predicate.
    /// The key a record's `property` is indexed under: references under the destination ID's
    /// key encoding, attributes under their value's (a double attribute holding an integer as
    /// that double). Every record has one entry per indexed property, nil included.
    static func indexKey(_ entity: EntityDescription, _ property: String, _ value: Value) -> [UInt8] {
        if entity.attribute(property)?.type == .double, case .int(let number) = value {
            return indexKey(.double(Double(number)))
        }
        return indexKey(value)
    }

    static func indexKey(_ value: Value) -> [UInt8] {
        guard let bytes = self.value(value) else { return [0] }
        return [1] + bytes
    }

    static func value(_ value: Value) -> [UInt8]? {
        switch value {
        case .null: return nil
        case .bool(let flag): return [flag ? 1 : 0]
        case .int(let number): return bigEndian(UInt64(bitPattern: number) ^ (1 << 63))
        case .double(let number): return orderedDouble(number)
        case .date(let date): return orderedDouble(date.timeIntervalSinceReferenceDate)
        case .uuid(let uuid): return withUnsafeBytes(of: uuid.uuid) { Array($0) }
        case .string(let text): return Array(text.utf8.prefix(maximumTextKey))
        case .data(let data): return Array(data.prefix(maximumTextKey))
        case .decimal(let number): return Array(DecimalForm.sortableKey(number).utf8)
        // Never indexed (`EntityDescription.indexedProperties` leaves them out): no key.
        case .array, .dictionary, .document: return nil
        }
    }

    /// Whether index keys of this type are exact (fixed-size, or a decimal's whole sortable key), so
    /// key ranges are value ranges.
    static func supportsRanges(_ type: AttributeType) -> Bool {
        switch type {
        case .bool, .int, .double, .date, .uuid, .decimal: true
        case .string, .file, .data, .array, .set, .dictionary, .document: false
        }
    }

    static func orderedDouble(_ number: Double) -> [UInt8] {
        let bits = (number == 0 ? 0 : number).bitPattern  // -0 and 0 are one key
        return bigEndian(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) }
    }

    static func encodeIDs(_ ids: [RecordID]) throws -> [UInt8] {
        var writer = BinaryWriter()
        writer.unsigned(UInt64(ids.count))
        for id in ids { writer.recordID(id) }
        return writer.bytes
    }

    static func decodeIDs(_ bytes: [UInt8]) throws -> [RecordID] {
        var reader = BinaryReader(bytes)
        return try (0..<reader.count()).map { _ in try reader.recordID() }
    }
}
