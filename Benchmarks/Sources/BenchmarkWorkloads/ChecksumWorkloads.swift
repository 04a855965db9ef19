import Strata

/// What record checksums cost where they are paid: LMDB decodes (and so verifies) every record it
/// reads. Ours: `RecordCodec.decode` of 100k checksummed records; the peer: the same records in
/// format 1, which has no checksum. Fetch-all and point fetches do this decode once per record, so
/// the difference per record is the checksum's share of those reads.
public enum ChecksumWorkloads {
    static func encoded() throws -> (entity: EntityDescription, checked: [(RecordID, [UInt8])], unchecked: [(RecordID, [UInt8])]) {
        let entity = try BenchSchema.make().requireEntity("BenchItem")
        var checked: [(RecordID, [UInt8])] = []
        var unchecked: [(RecordID, [UInt8])] = []
        for item in InMemoryWorkloads.makeItems() {
            var record = try item.record()
            record.version = 1
            checked.append((record.id, RecordCodec.encode(record, entity)))
            var writer = BinaryWriter()
            writer.byte(1)
            writer.signed(record.version)
            for name in entity.storedPropertyNames { writer.value(record[name]) }
            unchecked.append((record.id, writer.bytes))
        }
        return (entity, checked, unchecked)
    }

    static func decodeAll(_ records: [(RecordID, [UInt8])], _ entity: EntityDescription) throws -> Int {
        var count = 0
        for (id, bytes) in records { count += try RecordCodec.decode(bytes, id: id, entity).values.count }
        return count
    }

    public static let groups: [WorkloadGroup] = [
        WorkloadGroup(backend: "record checksums", peer: "no checksum", workloads: [
            Workload(name: "decode 100k records (LMDB's read path)", ours: {
                let (entity, checked, _) = try encoded()
                return { try decodeAll(checked, entity) }
            }, peer: {
                let (entity, _, unchecked) = try encoded()
                return { try decodeAll(unchecked, entity) }
            }),
        ]),
    ]
}
