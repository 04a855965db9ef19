import PostgresNIO
import StrataSQL
import StrataStorage

/// Writes held until a flush, the last one per key winning.
struct PendingWrites {
    /// Per entity: records to upsert, or nil to delete.
    var records: [String: [RecordID: Record?]] = [:]
    /// Per (entity, relationship): owners' new lists (empty: removed).
    var links: [LinkKey: [RecordID: [RecordID]]] = [:]
    var metadata: [String: [UInt8]?] = [:]

    struct LinkKey: Hashable {
        let entity: String
        let relationship: String
    }

    var isEmpty: Bool { records.isEmpty && links.isEmpty && metadata.isEmpty }

    func touches(_ entity: String) -> Bool {
        records[entity] != nil || links.keys.contains { $0.entity == entity }
    }

    mutating func put(_ record: Record) {
        records[record.entity, default: [:]][record.id] = .some(record)
    }

    /// Many records: each entity's table of pending rows grown once, not a doubling at a time
    /// (growing it was a quarter of a 100k-record save's client time).
    mutating func put(contentsOf batch: [Record]) {
        var counts: [String: Int] = [:]
        for record in batch { counts[record.entity, default: 0] += 1 }
        for (entity, count) in counts {
            records[entity, default: [:]].reserveCapacity((records[entity]?.count ?? 0) + count)
        }
        for record in batch { records[record.entity, default: [:]][record.id] = .some(record) }
    }

    mutating func delete(_ entity: String, id: RecordID, linkLists: [String]) {
        records[entity, default: [:]][id] = .some(nil)
        for relationship in linkLists {
            links[LinkKey(entity: entity, relationship: relationship), default: [:]][id] = []
        }
    }

    mutating func setLinks(_ entity: String, _ relationship: String, _ owner: RecordID, _ targets: [RecordID]) {
        links[LinkKey(entity: entity, relationship: relationship), default: [:]][owner] = targets
    }

    /// One statement doing every pending write, then notifying `channel`. Records whose IDs are
    /// in `knownAbsent` are inserted; the others upserted.
    func statement(layout: PostgresLayout, channel: String, knownAbsent: [String: Set<RecordID>] = [:]) throws -> (
        sql: String, binds: PostgresBindings
    ) {
        var binds = PostgresBindings()
        var clauses: [String] = []
        func parameter(_ array: PostgresWireArray, cast: String) -> String {
            binds.append(array)
            return "$\(binds.count)::\(cast)"
        }
        for (entity, changes) in records.sorted(by: { $0.key < $1.key }) {
            let table = try layout.table(entity)
            let idType = PostgresValues.wireType(table.entity.idKind)
            let idCast = PostgresLayout.arrayCast(PostgresValues.columnType(table.entity.idKind))
            var deleted = PostgresWireArray(element: idType)
            // [0]: rows known to be new (a plain INSERT); [1]: the others (an upsert).
            var batches = [RowBatch(table: table), RowBatch(table: table)]
            let absent = knownAbsent[entity] ?? []
            for (id, change) in changes {
                guard let record = change else {
                    deleted.append(id.value)
                    continue
                }
                batches[absent.contains(id) ? 0 : 1].append(record, layout: table.layout)
            }
            if !deleted.isEmpty {
                clauses.append("DELETE FROM \(table.name) WHERE \"id\" = ANY(\(parameter(deleted, cast: idCast)))")
            }
            let names = ["\"id\"", "\"strata_version\""] + table.columns.map { PostgresLayout.column($0.name) }
            for (index, batch) in batches.enumerated() where !batch.ids.isEmpty {
                var arrays = [parameter(batch.ids, cast: idCast), parameter(batch.versions, cast: "bigint[]")]
                for (column, values) in zip(table.columns, batch.columns) {
                    arrays.append(parameter(values, cast: column.kind.arrayCast))
                }
                let insert =
                    "INSERT INTO \(table.name) (\(names.joined(separator: ", "))) SELECT * FROM "
                    + "unnest(\(arrays.joined(separator: ", ")))"
                clauses.append(
                    index == 0
                        ? insert
                        : insert + " ON CONFLICT (\"id\") DO UPDATE SET "
                            + names.dropFirst().map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", "))
            }
        }
        for (key, lists) in links.sorted(by: {
            ($0.key.entity, $0.key.relationship) < ($1.key.entity, $1.key.relationship)
        }) {
            let table = layout.linkTable(key.entity, key.relationship)
            guard let owner = layout.schema.entity(key.entity), let relationship = owner.relationship(key.relationship),
                let destination = layout.schema.entity(relationship.destination)
            else { continue }
            let ownerCast = PostgresLayout.arrayCast(PostgresValues.columnType(owner.idKind))
            let targetCast = PostgresLayout.arrayCast(PostgresValues.columnType(destination.idKind))
            var owners = PostgresWireArray(element: PostgresValues.wireType(owner.idKind))
            var linkOwners = PostgresWireArray(element: PostgresValues.wireType(owner.idKind))
            var targets = PostgresWireArray(element: PostgresValues.wireType(destination.idKind))
            var positions = PostgresWireArray(element: .int8)
            for (ownerID, list) in lists {
                owners.append(ownerID.value)
                for (position, target) in list.enumerated() {
                    linkOwners.append(ownerID.value)
                    targets.append(target.value)
                    positions.append(.int(Int64(position)))
                }
            }
            // The delete and the insert run on one snapshot: the delete never sees the new rows.
            clauses.append("DELETE FROM \(table) WHERE owner = ANY(\(parameter(owners, cast: ownerCast)))")
            if !linkOwners.isEmpty {
                clauses.append(
                    "INSERT INTO \(table) (owner, target, position) SELECT * FROM "
                        + "unnest(\(parameter(linkOwners, cast: ownerCast)), \(parameter(targets, cast: targetCast)), "
                        + "\(parameter(positions, cast: "bigint[]")))"
                )
            }
        }
        if !metadata.isEmpty {
            var removed = PostgresWireArray(element: .text)
            var keys = PostgresWireArray(element: .text)
            var values = PostgresWireArray(element: .bytea)
            for (key, value) in metadata {
                if let value {
                    keys.append(.string(key))
                    values.append(.data(.init(value)))
                } else {
                    removed.append(.string(key))
                }
            }
            if !removed.isEmpty {
                clauses.append("DELETE FROM \(layout.metaTable) WHERE key = ANY(\(parameter(removed, cast: "text[]")))")
            }
            if !keys.isEmpty {
                clauses.append(
                    "INSERT INTO \(layout.metaTable) (key, value) SELECT * FROM "
                        + "unnest(\(parameter(keys, cast: "text[]")), \(parameter(values, cast: "bytea[]"))) ON "
                        + "CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"
                )
            }
        }
        binds.append(strata: .string(channel))
        let notify = "SELECT pg_notify($\(binds.count), '')"
        let with = clauses.enumerated().map { "w\($0.offset) AS (\($0.element))" }.joined(separator: ", ")
        return (clauses.isEmpty ? notify : "WITH \(with) \(notify)", binds)
    }
}

/// One column array per stored column of an entity's table, filled record by record.
private struct RowBatch {
    var ids: PostgresWireArray
    var versions = PostgresWireArray(element: .int8)
    var columns: [PostgresWireArray]

    init(table: PostgresLayout.Table) {
        ids = PostgresWireArray(element: PostgresValues.wireType(table.entity.idKind))
        columns = table.columns.map { PostgresWireArray(element: $0.kind.wireType) }
    }

    mutating func append(_ record: Record, layout: RecordLayout) {
        ids.append(record.id.value)
        versions.append(.int(record.version))
        for (index, value) in record.inLayout(layout).slots.enumerated() where index < columns.count {
            columns[index].append(value)
        }
    }
}
