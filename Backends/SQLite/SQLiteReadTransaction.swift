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

    /// The most values bound in one batched statement (SQLite allows 32,766).
    static var batchArguments: Int { SQLiteLayout.batchArguments }

    /// Runs `body` once per batch of at most ``batchArguments`` distinct IDs.
    func forEachIDBatch(of ids: [RecordID], _ body: (ArraySlice<RecordID>) throws -> Void) throws {
        let unique = Array(Set(ids))
        var start = 0
        while start < unique.count {
            let batch = unique[start..<min(unique.count, start + Self.batchArguments)]
            start += batch.count
            try body(batch)
        }
    }

    /// Runs `body` once per batch of at most ``batchArguments`` distinct IDs, with the batch's
    /// bound values, its `?, ?, …` list, and a statement preparer that caches the full-size
    /// statement (every large batch reuses it) and prepares a remainder for its one use.
    func forEachBatch(
        of ids: [RecordID],
        _ body: (_ values: [DatabaseValue], _ placeholders: String, _ prepare: (String) throws -> Statement) throws ->
            Void
    ) throws {
        try forEachIDBatch(of: ids) { batch in
            let placeholders = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            try body(batch.map(SQLiteValues.databaseValue), placeholders) { sql in
                try statement(sql, cached: batch.count == Self.batchArguments)
            }
        }
    }

    /// `SELECT id … WHERE id IN (…)`, answered from the primary key's index alone.
    func existingIDs(_ entity: String, among ids: [RecordID]) throws -> Set<RecordID> {
        let table = try layout.table(entity)
        var found = Set<RecordID>()
        try forEachIDBatch(of: ids) { batch in
            var query = SQLiteRawStatement(
                try statement(table.existingIDsSQL(count: batch.count), cached: batch.count == Self.batchArguments))
            for id in batch { query.bind(id.value) }
            let asked = Set(batch)
            try query.forEachRow(db) { row in
                guard let id = SQLiteRawStatement.recordID(row, 0, kind: table.entity.idKind), asked.contains(id) else {
                    throw StrataError(
                        .corruptStore, entity: entity,
                        "the store's ID index is damaged: a lookup by ID found a row that was not asked for")
                }
                found.insert(id)
            }
        }
        return found
    }

    /// `SELECT id, strata_version … WHERE id IN (…)`: no values decoded (a cascade's children).
    func versions(_ entity: String, ids: [RecordID]) throws -> [RecordID: Int64] {
        let table = try layout.table(entity)
        var found: [RecordID: Int64] = [:]
        found.reserveCapacity(ids.count)
        try forEachIDBatch(of: ids) { batch in
            var query = SQLiteRawStatement(
                try statement(table.versionsSQL(count: batch.count), cached: batch.count == Self.batchArguments))
            for id in batch { query.bind(id.value) }
            let asked = Set(batch)
            try query.forEachRow(db) { row in
                guard let id = SQLiteRawStatement.recordID(row, 0, kind: table.entity.idKind), asked.contains(id),
                    sqlite3_column_type(row, 1) == SQLITE_INTEGER
                else {
                    throw StrataError(
                        .corruptStore, entity: entity,
                        "the store's ID index is damaged: a lookup of versions by ID found a row that was not asked for"
                            + " or has no version")
                }
                found[id] = sqlite3_column_int64(row, 1)
            }
        }
        return found
    }

    func records(_ entity: String, ids: [RecordID]) throws -> [RecordID: Record] {
        let table = try layout.table(entity)
        var found: [RecordID: Record] = [:]
        found.reserveCapacity(ids.count)
        let asked = Set(ids)
        try forEachBatch(of: ids) { values, placeholders, prepare in
            let sql = "SELECT \(table.selectList) FROM \(table.name) AS t0 WHERE t0.\"id\" IN (\(placeholders))"
            try forEachRecord(try prepare(sql), values, table) { record in
                guard asked.contains(record.id) else {
                    throw StrataError(
                        .corruptStore, entity: entity, recordID: record.id,
                        "the store's ID index is damaged: a lookup by ID found the row of \(record.id), which was not asked for"
                    )
                }
                found[record.id] = record
            }
        }
        return found
    }

    func referrers(_ entity: String, property: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]] {
        let table = try layout.table(entity)
        guard table.columnIndex[property] != nil,
            case .reference(let targetKind)? = table.columnIndex[property].map({ table.columns[$0].kind })
        else {
            // An indexed attribute: the per-target form handles its value types.
            return try referrersOneTargetAtATime(entity, property: property, toEach: targets)
        }
        var found: [RecordID: [RecordID]] = [:]
        let sql = { (count: Int) in
            "SELECT \"id\", \(quoted(property)) FROM \(table.name) WHERE \(quoted(property)) IN ("
                + Array(repeating: "?", count: count).joined(separator: ", ") + ") ORDER BY \(quoted(property)), \"id\""
        }
        try forEachIDBatch(of: targets) { batch in
            // The (property, id) index yields each target's referrers in ID order, one target after
            // another: a run of rows is gathered before it is stored under its target.
            var query = SQLiteRawStatement(try statement(sql(batch.count), cached: batch.count == Self.batchArguments))
            for target in batch { query.bind(target.value) }
            var run: (target: RecordID, ids: [RecordID])?
            try query.forEachRow(db) { row in
                guard let id = SQLiteRawStatement.recordID(row, 0, kind: table.entity.idKind),
                    let target = SQLiteRawStatement.recordID(row, 1, kind: targetKind)
                else {
                    throw StrataError(
                        .corruptStore, entity: entity, property: property,
                        "a stored \(property) reference or ID is damaged: it is not an ID of its kind")
                }
                if run?.target == target {
                    run?.ids.append(id)
                } else {
                    if let run { found[run.target, default: []].append(contentsOf: run.ids) }
                    run = (target, [id])
                }
            }
            if let run { found[run.target, default: []].append(contentsOf: run.ids) }
        }
        return found
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
        return Self.bytes(row[0])
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
