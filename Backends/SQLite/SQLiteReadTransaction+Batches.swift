import Foundation
import GRDB
import GRDBSQLite
import StrataSQL
import StrataStorage

/// The batched lookups by ID — which IDs exist, their versions, their records, the referrers of many
/// targets — in `IN (…)` lists of at most ``SQLiteReadTransaction/batchArguments`` values, each
/// result row read straight from the statement's columns.
extension SQLiteReadTransaction {
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
                        "the store's ID index is damaged: a lookup by ID found the row of \(record.id), "
                            + "which was not asked for"
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

    func links(_ entity: String, relationship: String, fromEach owners: [RecordID]) throws -> [RecordID: [RecordID]] {
        let (table, kinds) = (layout.linkTable(entity, relationship), try linkKinds(entity, relationship))
        return try pairs(of: owners, kinds: (kinds.owner, kinds.target), entity: entity, relationship: relationship) {
            "SELECT owner, target FROM \(table) WHERE owner IN (\($0)) ORDER BY owner, position"
        }
    }

    func linkOwners(_ entity: String, relationship: String, toEach targets: [RecordID]) throws -> [RecordID: [RecordID]]
    {
        let (table, kinds) = (layout.linkTable(entity, relationship), try linkKinds(entity, relationship))
        return try pairs(of: targets, kinds: (kinds.target, kinds.owner), entity: entity, relationship: relationship) {
            "SELECT target, owner FROM \(table) WHERE target IN (\($0)) ORDER BY target, owner"
        }
    }

    /// The ID kinds of a link table's owners and targets.
    private func linkKinds(_ entity: String, _ relationship: String) throws -> (
        owner: RecordID.Kind, target: RecordID.Kind
    ) {
        (
            try layout.table(entity).entity.idKind,
            try layout.schema.destinationIDKind(of: entity, relationship: relationship)
        )
    }

    /// Rows of (key, ID) for batches of keys bound in `IN (…)`, grouped by key in the order they come.
    private func pairs(
        of keys: [RecordID], kinds: (key: RecordID.Kind, id: RecordID.Kind), entity: String, relationship: String,
        _ sql: (String) -> String
    ) throws -> [RecordID: [RecordID]] {
        var found: [RecordID: [RecordID]] = [:]
        try forEachIDBatch(of: keys.filter { $0.kind == kinds.key }) { batch in
            let placeholders = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            var query = SQLiteRawStatement(
                try statement(sql(placeholders), cached: batch.count == Self.batchArguments))
            for key in batch { query.bind(key.value) }
            try query.forEachRow(db) { row in
                guard let key = SQLiteRawStatement.recordID(row, 0, kind: kinds.key),
                    let id = SQLiteRawStatement.recordID(row, 1, kind: kinds.id)
                else {
                    throw StrataError(
                        .corruptStore, entity: entity, property: relationship,
                        "a stored \(relationship) link is damaged: an ID is not of its kind")
                }
                found[key, default: []].append(id)
            }
        }
        return found
    }
}
