import Foundation
import GRDB
import GRDBSQLite
import StrataSQL
import StrataStorage

/// Reads over one GRDB connection, inside the transaction GRDB opened for the closure.
class SQLiteReadTransaction: StorageReadTransaction {
    let db: Database
    let layout: SQLiteLayout
    var schema: Schema { layout.schema }

    /// Bytes of metadata values this transaction read or wrote: a file's chunks pass through the
    /// page cache in bulk, and the backend gives that memory back after such a transaction.
    var metadataBytes = 0

    init(db: Database, layout: SQLiteLayout) {
        self.db = db
        self.layout = layout
    }

    func statement(_ sql: String, cached: Bool = true) throws -> Statement {
        cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
    }

    func rows(_ statement: Statement, _ arguments: [DatabaseValue]) throws -> RowCursor {
        statement.setUncheckedArguments(StatementArguments(arguments))
        return try Row.fetchCursor(statement)
    }

    /// A row as a record, its checksum verified: a damaged row is `corruptStore` naming the entity
    /// and ID, never a record with wrong values (SQLite keeps no checksums of its own).
    func decode(_ row: Row, _ table: SQLiteLayout.Table) throws -> Record {
        try decode(table) { row[Int($0)] }
    }

    /// The current row of a stepped statement as a record, read straight from SQLite's columns
    /// (no GRDB `Row` per row), with the same values and checks as a `Row`'s.
    func decode(_ handle: OpaquePointer, _ table: SQLiteLayout.Table) throws -> Record {
        try decode(table) { DatabaseValue(sqliteStatement: handle, index: $0) }
    }

    /// Runs `statement` with `arguments` and hands each result row to `body` as a record.
    func forEachRecord(
        _ statement: Statement, _ arguments: [DatabaseValue], _ table: SQLiteLayout.Table,
        _ body: (Record) throws -> Void
    ) throws {
        statement.setUncheckedArguments(StatementArguments(arguments))
        try SQLiteRawStatement(statement).forEachRow(db) { handle in try body(try decode(handle, table)) }
    }

    private func decode(_ table: SQLiteLayout.Table, _ read: (Int32) -> DatabaseValue) throws -> Record {
        let id = try SQLiteValues.recordID(read(0), kind: table.entity.idKind)
        func corrupt(_ why: String, _ underlying: (any Error)? = nil) -> StrataError {
            StrataError(
                .corruptStore, entity: table.entity.name, recordID: id, underlying: underlying,
                "stored record is damaged: \(why)")
        }
        guard case .int64(let version) = read(1).storage else { throw corrupt("it has no version") }
        var slots: [Value] = []
        slots.reserveCapacity(table.columns.count)
        var checksum = Checksum.record(id: id, version: version)
        for (offset, column) in table.columns.enumerated() {
            let stored = read(Int32(offset + 2))
            let value: Value
            do {
                switch column.kind {
                case .attribute(let type): value = try SQLiteValues.value(stored, as: type)
                case .collection(let type, let element):
                    value = try SQLiteValues.value(stored, as: type, element: element)
                case .reference(let kind):
                    value = stored.isNull ? .null : try SQLiteValues.recordID(stored, kind: kind).value
                }
            } catch {
                throw corrupt("\(column.name) holds a value of the wrong kind", error)
            }
            slots.append(value)
            checksum.update(value)
        }
        switch read(Int32(table.columns.count + 2)).storage {
        case .int64(let stored):
            guard stored == Int64(checksum.final) else { throw corrupt("its checksum does not match") }
        case .null:
            throw corrupt("it has no checksum, which every row of a format 1 store has")
        default:
            throw corrupt("its checksum is not a number")
        }
        return Record(entity: table.entity.name, id: id, version: version, layout: table.layout, slots: slots)
    }

    func record(_ entity: String, id: RecordID) throws -> Record? {
        let table = try layout.table(entity)
        var found: Record?
        try forEachRecord(try statement(table.selectByIDSQL), [SQLiteValues.databaseValue(id)], table) {
            if found == nil { found = $0 }
        }
        guard let record = found else { return nil }
        // A damaged primary-key index can lead the lookup to another, intact row.
        guard record.id == id else {
            throw StrataError(
                .corruptStore, entity: entity, recordID: id,
                "the store's ID index is damaged: a lookup of \(id) found the row of \(record.id)")
        }
        return record
    }

    func fetch(_ plan: FetchPlan) throws -> [Record] {
        let table = try layout.table(plan.entity)
        var query = SQLiteQuery(layout: layout)
        let sql = try query.select(plan)
        var records: [Record] = []
        try forEachRecord(try statement(sql, cached: false), query.arguments, table) { records.append($0) }
        return records
    }

    func count(_ plan: FetchPlan) throws -> Int {
        var query = SQLiteQuery(layout: layout)
        let sql = try query.count(plan)
        let cursor = try rows(try statement(sql, cached: false), query.arguments)
        guard let row = try cursor.next(), case .int64(let count) = (row[0] as DatabaseValue).storage else { return 0 }
        return Int(count)
    }

    func aggregate(_ plan: AggregatePlan) throws -> [AggregateRow] {
        do {
            return try aggregate(plan, exact: false)
        } catch let error as DatabaseError where error.message == "integer overflow" {
            return try aggregate(plan, exact: true)
        }
    }

    /// The rows of `plan` (see ``SQLiteQuery/aggregate(_:exact:)`` for `exact`).
    private func aggregate(_ plan: AggregatePlan, exact: Bool) throws -> [AggregateRow] {
        let table = try layout.table(plan.entity)
        var query = SQLiteQuery(layout: layout)
        let sql = try query.aggregate(plan, exact: exact)
        let cursor = try rows(try statement(sql, cached: false), query.arguments)
        var result: [AggregateRow] = []
        while let row = try cursor.next() {
            var column = 0
            func next() -> DatabaseValue {
                defer { column += 1 }
                return row[column]
            }
            var group = Value.null
            if let property = plan.groupBy, let index = table.columnIndex[property] {
                let stored = next()
                switch table.columns[index].kind {
                case .attribute(let type): group = try SQLiteValues.value(stored, as: type)
                case .collection(let type, let element):
                    group = try SQLiteValues.value(stored, as: type, element: element)
                case .reference(let kind):
                    group = stored.isNull ? .null : try SQLiteValues.recordID(stored, kind: kind).value
                }
            }
            var values: [Value] = []
            for function in plan.functions {
                let stored = next()
                guard let property = function.property, let type = table.entity.attribute(property)?.type else {
                    guard case .int64(let count) = stored.storage else {
                        throw StrataError(.corruptStore, entity: plan.entity, "count(*) answered \(stored)")
                    }
                    values.append(.int(count))
                    continue
                }
                switch function {
                case .sum where type == .int:
                    if case .string = stored.storage {
                        throw StrataError.sumOverflow(entity: plan.entity, property: property)
                    }
                    values.append(stored.isNull ? .int(0) : try SQLiteValues.value(stored, as: .int))
                case .average where type == .int && !exact:
                    // sum and count: the engine's Double(sum) / Double(count).
                    let counted = next()
                    guard case .int64(let sum) = stored.storage, case .int64(let count) = counted.storage, count > 0
                    else {
                        values.append(.null)
                        continue
                    }
                    values.append(.double(Double(sum) / Double(count)))
                case .sum, .average:
                    values.append(try SQLiteValues.value(stored, as: .double))
                default:
                    values.append(try SQLiteValues.value(stored, as: type))
                }
            }
            result.append(AggregateRow(group: group, values: values))
        }
        return result
    }

    private func ids(_ sql: String, _ argument: DatabaseValue, kind: RecordID.Kind) throws -> [RecordID] {
        let cursor = try rows(try statement(sql), [argument])
        var ids: [RecordID] = []
        while let row = try cursor.next() { ids.append(try SQLiteValues.recordID(row[0], kind: kind)) }
        return ids
    }

    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        let table = try layout.table(entity)
        return try ids(
            "SELECT \"id\" FROM \(table.name) WHERE \(quoted(property)) = ? ORDER BY \"id\"",
            SQLiteValues.databaseValue(target), kind: table.entity.idKind)
    }

    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        let kind = try layout.schema.destinationIDKind(of: entity, relationship: relationship)
        return try ids(
            "SELECT target FROM \(layout.linkTable(entity, relationship)) WHERE owner = ? ORDER BY position",
            SQLiteValues.databaseValue(owner), kind: kind)
    }

    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        let kind = try layout.table(entity).entity.idKind
        return try ids(
            "SELECT owner FROM \(layout.linkTable(entity, relationship)) WHERE target = ? ORDER BY owner",
            SQLiteValues.databaseValue(target), kind: kind)
    }

    func metadata(_ key: String) throws -> [UInt8]? {
        let cursor = try rows(
            try statement("SELECT value FROM \(SQLiteLayout.metaTable) WHERE key = ?"), [key.databaseValue])
        guard let row = try cursor.next() else { return nil }
        let bytes = Self.bytes(row[0])
        metadataBytes += bytes?.count ?? 0
        return bytes
    }

    func metadata(keys: [String]) throws -> [String: [UInt8]] {
        var found: [String: [UInt8]] = [:]
        found.reserveCapacity(keys.count)
        var start = keys.startIndex
        while start < keys.endIndex {
            let batch = keys[start..<min(start + Self.batchArguments, keys.endIndex)]
            start = batch.endIndex
            let placeholders = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            let cursor = try rows(
                try statement(
                    "SELECT key, value FROM \(SQLiteLayout.metaTable) WHERE key IN (\(placeholders))",
                    cached: batch.count == Self.batchArguments),
                batch.map(\.databaseValue))
            while let row = try cursor.next() {
                guard let key = String.fromDatabaseValue(row[0]) else {
                    throw StrataError(.corruptStore, "a metadata key is not text")
                }
                found[key] = Self.bytes(row[1])
            }
        }
        return found
    }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        // A key range rather than LIKE, so the primary key index answers it.
        var sql = "SELECT key, value FROM \(SQLiteLayout.metaTable) WHERE key >= ?"
        var arguments = [prefix.databaseValue]
        if let bound = KeyRange.upperBound(ofPrefix: prefix) {
            sql += " AND key < ?"
            arguments.append(bound.databaseValue)
        }
        if let after {
            sql += " AND key > ?"
            arguments.append(after.databaseValue)
        }
        sql += " ORDER BY key LIMIT ?"
        arguments.append(Int64(limit ?? -1).databaseValue)
        let cursor = try rows(try statement(sql), arguments)
        var entries: [(key: String, value: [UInt8])] = []
        while let row = try cursor.next() {
            guard let key = String.fromDatabaseValue(row[0]), let value = Self.bytes(row[1]) else {
                throw StrataError(.corruptStore, "unreadable metadata entry")
            }
            entries.append((key, value))
        }
        return entries
    }

    static func bytes(_ stored: DatabaseValue) -> [UInt8]? {
        switch stored.storage {
        case .blob(let data): return Array(data)
        case .string(let text): return Array(text.utf8)
        default: return nil
        }
    }
}
