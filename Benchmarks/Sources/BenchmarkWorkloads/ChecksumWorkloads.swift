import Foundation
import Strata

/// What record checksums cost where they are paid: LMDB decodes (and so verifies) every record it
/// reads. Ours: `RecordCodec.decode` of 100k checksummed records; the peer: the same bytes read
/// value by value into the same record, with no checksum (what a decode without one would do). Fetch-all and point
/// fetches do this decode once per record, so the difference per record is the checksum's share
/// of those reads. (SQLite's A/B — the same rows with the checksum column emptied — cannot run
/// since store format 1, where a row without its checksum is damage; its last figures are in
/// BENCHMARKS.md.)
public enum ChecksumWorkloads {
    static func encoded() throws -> (entity: EntityDescription, records: [(RecordID, [UInt8])]) {
        let entity = try BenchSchema.make().requireEntity("BenchItem")
        var records: [(RecordID, [UInt8])] = []
        for item in InMemoryWorkloads.makeItems() {
            var record = try item.record()
            record.version = 1
            records.append((record.id, RecordCodec.encode(record, entity)))
        }
        return (entity, records)
    }

    static func decodeAll(_ records: [(RecordID, [UInt8])], _ entity: EntityDescription) throws -> Int {
        var count = 0
        for (id, bytes) in records { count += try RecordCodec.decode(bytes, id: id, entity).values.count }
        return count
    }

    /// The same bytes read without their checksum: format byte, version, each value, then the same
    /// record built from them.
    static func readAllUnchecked(_ records: [(RecordID, [UInt8])], _ entity: EntityDescription) throws -> Int {
        var count = 0
        let slots = entity.layout.count
        for (id, bytes) in records {
            var reader = BinaryReader(bytes)
            _ = try reader.byte()
            let version = try reader.signed()
            var values: [Value] = []
            values.reserveCapacity(slots)
            for _ in 0..<slots { values.append(try reader.value()) }
            let record = Record(entity: entity.name, id: id, version: version, layout: entity.layout, slots: values)
            count += record.values.count
        }
        return count
    }

    public static let groups: [WorkloadGroup] = [
        WorkloadGroup(
            backend: "record checksums", peer: "no checksum",
            workloads: [
                Workload(
                    name: "decode 100k records (LMDB's read path)",
                    ours: {
                        let (entity, records) = try encoded()
                        return { try decodeAll(records, entity) }
                    },
                    peer: {
                        let (entity, records) = try encoded()
                        return { try readAllUnchecked(records, entity) }
                    })
            ])
    ]
}
