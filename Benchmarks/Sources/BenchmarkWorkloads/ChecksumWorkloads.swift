import Foundation
import GRDB
import Strata
import StrataSQLite

/// What record checksums cost where they are paid: LMDB decodes (and so verifies) every record it
/// reads; SQLite verifies each row as it turns it into a record (an A/B of the same backend on
/// the same rows, once with checksums and once with the column emptied and the store marked as
/// written before checksums, which reads rows unchecked). Ours: `RecordCodec.decode` of 100k checksummed records; the peer: the same records in
/// format 1, which has no checksum. Fetch-all and point fetches do this decode once per record, so
/// the difference per record is the checksum's share of those reads.
public enum ChecksumWorkloads {
    static func encoded() throws -> (
        entity: EntityDescription, checked: [(RecordID, [UInt8])], unchecked: [(RecordID, [UInt8])]
    ) {
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

    /// A SQLite store holding `items`, with or without row checksums.
    static func sqliteStore(_ items: [BenchItem], checksums: Bool) async throws -> Store {
        let path = SQLiteWorkloads.temporaryPath()
        let schema = try BenchSchema.make()
        let filling = Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
        try await filling.repository(BenchItem.self).insert(contentsOf: items)
        try await filling.close()
        if !checksums {
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                for entity in schema.entities {
                    try db.execute(sql: "UPDATE \"\(entity.name)\" SET strata_checksum = NULL")
                }
                try db.execute(
                    sql: "UPDATE strata_meta SET value = ? WHERE key = 'strata.sqlite.checksums'",
                    arguments: [Data("0".utf8)])
            }
            try queue.close()
        }
        return Store(backend: try await SQLiteBackend.open(path: path, schema: schema))
    }

    public static let groups: [WorkloadGroup] = [
        WorkloadGroup(
            backend: "record checksums", peer: "no checksum",
            workloads: [
                Workload(
                    name: "decode 100k records (LMDB's read path)",
                    ours: {
                        let (entity, checked, _) = try encoded()
                        return { try decodeAll(checked, entity) }
                    },
                    peer: {
                        let (entity, _, unchecked) = try encoded()
                        return { try decodeAll(unchecked, entity) }
                    })
            ]),
        WorkloadGroup(
            backend: "SQLite rows with checksums", peer: "the same rows unchecked",
            workloads: [
                Workload(
                    name: "SQLite checksums: fetch all 100k",
                    ours: StrataSide.fetchAll(filledBy: { try await sqliteStore($0, checksums: true) }),
                    peer: StrataSide.fetchAll(filledBy: { try await sqliteStore($0, checksums: false) })),
                Workload(
                    name: "SQLite checksums: 100k point fetches, one read",
                    ours: StrataSide.pointFetches(filledBy: { try await sqliteStore($0, checksums: true) }),
                    peer: StrataSide.pointFetches(filledBy: { try await sqliteStore($0, checksums: false) })),
            ]),
    ]
}
