/// A compact, versioned binary form of a ``Record`` for backends that store bytes (LMDB):
/// format byte, version, then each stored property's value in the entity's declared order — no
/// property names, so a record costs little more than its values.
public enum RecordCodec {
    public static let formatVersion: UInt8 = 1

    public static func encode(_ record: Record, _ entity: EntityDescription) -> [UInt8] {
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(16 + entity.attributes.count * 12)
        writer.byte(formatVersion)
        writer.signed(record.version)
        for name in entity.storedPropertyNames { writer.value(record[name]) }
        return writer.bytes
    }

    public static func decode(_ bytes: [UInt8], id: RecordID, _ entity: EntityDescription) throws -> Record {
        var reader = BinaryReader(bytes)
        guard try reader.byte() == formatVersion else {
            throw StrataError(.incompatibleStore, entity: entity.name, recordID: id, "record written in an unknown format version")
        }
        let version = try reader.signed()
        var values: [String: Value] = [:]
        let names = entity.storedPropertyNames
        values.reserveCapacity(names.count)
        for name in names { values[name] = try reader.value() }
        return Record(entity: entity.name, id: id, version: version, values: values)
    }
}
