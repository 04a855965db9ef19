import Foundation
import GRDB
import StrataStorage

extension SQLiteBackend {
    /// Checks the store at `path` without changing its files, and reports what an open would make
    /// of them (see `VerifyReport`).
    ///
    /// - The write-ahead log is read as SQLite's recovery reads it: frames damaged after a point
    ///   are ignored by SQLite without an error (the store opens as it was before them), so verify
    ///   reports the commits that would be lost.
    /// - The database is checked on a private copy of its files, with the log and any interrupted
    ///   write's journal, which SQLite recovers there as an open would (the originals are never
    ///   opened, not even read-only, which would rewrite the wal-index): `PRAGMA integrity_check`
    ///   for SQLite's own structures, then every row of every entity decoded with its checksum.
    ///
    /// Run it on a store no process is writing: the copy is taken file by file.
    /// - Throws: `StrataError` `notAStore` or `incompatibleStore` when `path` is not a Strata
    ///   SQLite store of `schema`; everything else is a finding in the report.
    ///
    /// `schema` `nil` checks the store against the schema it holds (what `strata verify` does).
    public static func verify(path: String, schema: Schema? = nil) async throws -> VerifyReport {
        var report = VerifyReport(location: "sqlite:\(path)")
        guard FileManager.default.fileExists(atPath: path) else {
            throw StrataError(.notAStore, "\(path) does not exist")
        }
        let logSize = fileSize(path + "-wal")
        SQLiteWALInspection(path: path + "-wal", indexPath: path + "-shm").report(
            into: &report, path: path, logSize: logSize)
        if hasHotJournal(path) {
            report.notes.append("an interrupted write left a rollback journal; an open rolls it back")
        }
        let inspected = report
        return try await withPrivateCopy(
            of: path, suffixes: ["-wal", "-journal"],
            failure: { error in
                StrataError(.storageFailure, underlying: error, "\(path) cannot be copied to verify it")
            }
        ) { copy in try await check(copy: copy, original: path, schema: schema, report: inspected) }
    }

    /// The schema the copy holds (none, for a file without a store: nothing to check).
    private static func storedSchema(copy: String, original path: String) throws -> Schema {
        guard case .store(let description) = try inspectExistingFile(at: copy) else { return try Schema(entities: []) }
        return try StoredSchema.attached(description: description, path: path).schema()
    }

    /// The open's own inspection, then SQLite's integrity check and every row, on the copy.
    private static func check(copy: String, original path: String, schema given: Schema?, report start: VerifyReport)
        async throws -> VerifyReport
    {
        var report = start
        let schema: Schema
        do {
            schema = try given ?? storedSchema(copy: copy, original: path)
            try inspectExistingFile(at: copy, schema: schema)
        } catch {
            // SQLite's own errors (a truncated main file reads as malformed) become typed first.
            var typed =
                map(error, path: path) as? StrataError
                ?? StrataError(.corruptStore, underlying: error, "\(path) cannot be read")
            // The copy's path means nothing to the caller: name the store.
            typed.message = typed.message.replacingOccurrences(of: copy, with: path)
            guard typed.code == .corruptStore || typed.code == .storageFailure else { throw typed }
            report.add(typed)
            return report
        }
        do {
            let queue = try DatabaseQueue(path: copy)
            defer { try? queue.close() }
            let checked = report
            report = try await queue.read { db in
                var report = checked
                try check(db, schema: schema, path: path, into: &report)
                return report
            }
        } catch {
            report.add(
                map(error, path: path) as? StrataError
                    ?? StrataError(.corruptStore, underlying: error, "\(path) cannot be read"))
        }
        return report
    }

    /// SQLite 3.40 (Debian 12's) reports "NULL value in T.C" for every row of a WITHOUT ROWID
    /// table with a secondary index — our link tables — although no such NULL exists. Such a
    /// report is kept only when the column really holds a NULL.
    static func isFalseNullReport(_ message: String, _ db: Database) throws -> Bool {
        guard message.hasPrefix("NULL value in "), let dot = message.lastIndex(of: ".") else { return false }
        let table = String(message[message.index(message.startIndex, offsetBy: 14)..<dot])
        let column = String(message[message.index(after: dot)...])
        guard
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]) == true
        else { return false }
        let quotedTable = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let quotedColumn = "\"" + column.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM \(quotedTable) WHERE \(quotedColumn) IS NULL") == 0
    }

    private static func check(_ db: Database, schema: Schema, path: String, into report: inout VerifyReport) throws {
        guard try checkStore(db, schema: schema, path: path) else { return }
        for message in try String.fetchAll(db, sql: "PRAGMA integrity_check") where message != "ok" {
            if try isFalseNullReport(message, db) { continue }
            report.add(StrataError(.corruptStore, "\(path): \(message)"))
        }
        let layout = SQLiteLayout(schema: schema)
        let reader = SQLiteReadTransaction(db: db, layout: layout)
        for entity in schema.entities {
            let table = try layout.table(entity.name)
            var checked = 0
            do {
                let rows = try Row.fetchCursor(db, sql: "SELECT \(table.selectList) FROM \(table.name) AS t0")
                while let row = try rows.next() {
                    checked += 1
                    do {
                        _ = try reader.decode(row, table)
                    } catch let error as StrataError {
                        report.add(error)
                    }
                }
            } catch let error as DatabaseError {
                report.add(
                    StrataError(
                        .corruptStore, entity: entity.name, underlying: error,
                        "\(path): the table of \(entity.name) cannot be read to its end: "
                            + "\(error.message ?? "\(error.resultCode)")"
                    ))
            }
            report.recordsChecked[entity.name] = checked
        }
    }

    static func fileSize(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
