import Foundation
import GRDB
import StrataStorage

/// Writes inside GRDB's write transaction: a throw rolls everything back.
final class SQLiteWriteTransaction: SQLiteReadTransaction, StorageWriteTransaction {
    func put(_ record: Record) throws {
        let table = try layout.table(record.entity)
        var writer = SQLiteRawStatement(try statement(table.insertSQL))
        writer.bindRow(record, table)
        try writer.step(db)
    }

    /// Many rows per `INSERT … VALUES (…), (…)`: one statement step per batch instead of per record.
    func put(contentsOf records: [Record]) throws {
        var byEntity: [String: [Record]] = [:]
        for record in records { byEntity[record.entity, default: []].append(record) }
        for (entity, group) in byEntity {
            let table = try layout.table(entity)
            let perStatement = table.batchRows
            var start = 0
            while start < group.count {
                let count = min(perStatement, group.count - start)
                if count < perStatement {
                    // The remainder row by row, through the cached one-row statement.
                    for record in group[start...] { try put(record) }
                    break
                }
                var writer = SQLiteRawStatement(try statement(table.batchInsertSQL))
                for record in group[start..<(start + count)] { writer.bindRow(record, table) }
                try writer.step(db)
                start += count
            }
        }
    }

    /// One `DELETE … WHERE id IN (…)` per batch, and one per owned link table.
    func delete(_ entity: String, ids: [RecordID]) throws {
        let table = try layout.table(entity)
        try forEachBatch(of: ids) { values, placeholders, prepare in
            let arguments = StatementArguments(values)
            try prepare("DELETE FROM \(table.name) WHERE \"id\" IN (\(placeholders))").execute(arguments: arguments)
            for relationship in table.entity.relationships where relationship.keepsLinkList {
                try prepare(
                    "DELETE FROM \(layout.linkTable(entity, relationship.name)) WHERE owner IN (\(placeholders))"
                ).execute(arguments: arguments)
            }
        }
    }

    func delete(_ entity: String, id: RecordID) throws {
        let table = try layout.table(entity)
        try db.cachedStatement(sql: table.deleteSQL).execute(arguments: [SQLiteValues.databaseValue(id)])
        for relationship in table.entity.relationships where relationship.keepsLinkList {
            try setLinks(entity, relationship: relationship.name, from: id, to: [])
        }
    }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        let table = layout.linkTable(entity, relationship)
        let ownerValue = SQLiteValues.databaseValue(owner)
        try db.cachedStatement(sql: "DELETE FROM \(table) WHERE owner = ?").execute(arguments: [ownerValue])
        let insert = try db.cachedStatement(sql: "INSERT INTO \(table) (owner, target, position) VALUES (?, ?, ?)")
        for (position, target) in targets.enumerated() {
            insert.setUncheckedArguments([
                ownerValue, SQLiteValues.databaseValue(target), Int64(position).databaseValue,
            ])
            try insert.execute()
        }
    }

    private static let setMetadataSQL = "INSERT OR REPLACE INTO \(SQLiteLayout.metaTable) (key, value) VALUES (?, ?)"
    private static let removeMetadataSQL = "DELETE FROM \(SQLiteLayout.metaTable) WHERE key = ?"

    /// Bound straight into the cached statement (a sync client writes one per record it pushes
    /// or pulls, so GRDB's argument boxing was most of its cost).
    func setMetadata(_ key: String, _ value: [UInt8]?) throws {
        var writer = SQLiteRawStatement(try statement(value == nil ? Self.removeMetadataSQL : Self.setMetadataSQL))
        writer.bind(.string(key))
        if let value {
            writer.bindBlob(value)
            metadataBytes += value.count
        }
        try writer.step(db)
    }
}
