import Foundation

/// A compact, versioned binary form of a ``Record`` for backends that store bytes (LMDB):
/// format byte, version, then each stored property's value in the entity's declared order — no
/// property names, so a record costs little more than its values — then a CRC-32 of those bytes
/// and of the record's ID.
///
/// The checksum makes damage visible: a flipped bit, a zeroed run, a cut end, or a record found
/// under another key's ID decodes to ``StrataError/Code/corruptStore`` naming the entity and ID,
/// never to a record with wrong values. Every record of a store of format 1 carries format byte 2;
/// any other byte is damage.
public enum RecordCodec {
    /// The format byte records are written with.
    public static let formatVersion: UInt8 = 2

    /// A record in the compact binary form, with a checksum.
    public static func encode(_ record: Record, _ entity: EntityDescription) -> [UInt8] {
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(20 + entity.attributes.count * 12)
        writer.byte(formatVersion)
        writer.signed(record.version)
        for value in record.inLayout(entity.layout).slots { writer.value(value) }  // the engine's records already are
        let checksum = checksum(writer.bytes[...], id: record.id)
        for shift in stride(from: 0, to: 32, by: 8) {
            writer.byte(UInt8(truncatingIfNeeded: checksum >> UInt32(shift)))
        }
        return writer.bytes
    }

    /// The CRC-32 of the payload followed by the ID's own encoding.
    static func checksum(_ payload: ArraySlice<UInt8>, id: RecordID) -> UInt32 {
        var checksum = Checksum()
        checksum.update(payload)
        // The ID's bytes as `BinaryWriter.recordID` writes them, without building them: this
        // runs once per record read.
        func varint(_ value: UInt64) {
            var rest = value
            while rest >= 0x80 {
                checksum.update(byte: UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            checksum.update(byte: UInt8(rest))
        }
        switch id {
        case .uuid(let uuid):
            checksum.update(byte: 0)
            withUnsafeBytes(of: uuid.uuid) { checksum.update($0) }
        case .string(var text):
            checksum.update(byte: 1)
            text.withUTF8 { utf8 in
                varint(UInt64(utf8.count))
                checksum.update(UnsafeRawBufferPointer(utf8))
            }
        case .int(let number):
            checksum.update(byte: 2)
            varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
        }
        return checksum.final
    }

    /// - Parameters:
    ///   - bytes: The stored form (`encode(_:_:)`'s output).
    ///   - id: The record's ID, kept beside the bytes by the backend.
    ///   - entity: The entity whose layout the bytes follow.
    public static func decode(
        _ bytes: [UInt8], id: RecordID, _ entity: EntityDescription
    ) throws -> Record {
        let payloadEnd = try checked(bytes, id: id, entity)
        var reader = BinaryReader(bytes)
        do {
            let format = try reader.byte()
            let version = try reader.signed()
            let layout = entity.layout
            var slots: [Value] = []
            slots.reserveCapacity(layout.count)
            for _ in 0..<layout.count { slots.append(try reader.value()) }
            // With the checksum intact, values that do not end where it begins mean another layout.
            if format == 2, reader.position != payloadEnd {
                throw corrupt("its values do not fill it (\(reader.position) of \(payloadEnd) bytes)", entity, id)
            }
            return Record(entity: entity.name, id: id, version: version, layout: layout, slots: slots)
        } catch let error as StrataError where error.entity == nil {
            throw StrataError(
                .corruptStore, entity: entity.name, recordID: id, underlying: error,
                "stored record is damaged: \(error.message)")
        }
    }

    /// The version of a stored record, its format and checksum checked but its values not decoded
    /// (a cascade's children, whose values nothing reads).
    public static func version(_ bytes: [UInt8], id: RecordID, _ entity: EntityDescription) throws -> Int64 {
        _ = try checked(bytes, id: id, entity)
        var reader = BinaryReader(bytes)
        do {
            _ = try reader.byte()
            return try reader.signed()
        } catch let error as StrataError where error.entity == nil {
            throw StrataError(
                .corruptStore, entity: entity.name, recordID: id, underlying: error,
                "stored record is damaged: \(error.message)")
        }
    }

    /// Checks the format byte and the checksum; returns where the payload ends (the checksum's start).
    private static func checked(_ bytes: [UInt8], id: RecordID, _ entity: EntityDescription) throws -> Int {
        guard let format = bytes.first else { throw corrupt("it is empty", entity, id) }
        guard format == formatVersion else {
            throw corrupt("its format byte is \(format), not \(formatVersion)", entity, id)
        }
        guard bytes.count >= 5 else { throw corrupt("it is too short to hold its checksum", entity, id) }
        let payloadEnd = bytes.count - 4
        let stored = bytes[payloadEnd...].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard checksum(bytes[..<payloadEnd], id: id) == stored else {
            throw corrupt("its checksum does not match", entity, id)
        }
        return payloadEnd
    }

    private static func corrupt(_ why: String, _ entity: EntityDescription, _ id: RecordID) -> StrataError {
        StrataError(.corruptStore, entity: entity.name, recordID: id, "stored record is damaged: \(why)")
    }
}
