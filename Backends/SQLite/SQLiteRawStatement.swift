import Foundation
import GRDB
import GRDBSQLite
import StrataStorage

/// Binds values straight into a prepared statement's parameters and steps it: the write path's
/// hot loop (rows into a many-row `INSERT`) and the ID checks of every save. GRDB's
/// `StatementArguments` would build an array of `DatabaseValue`s per row through a generic
/// initializer that applies a key path per value; here each value goes
/// from ``Value`` to `sqlite3_bind_*` with nothing allocated in between.
///
/// The storage classes are exactly ``SQLiteValues/databaseValue(_:)``'s (what the readers expect):
/// booleans and integers as INTEGER, doubles and dates (seconds since 2001) as REAL, text as TEXT,
/// UUIDs as a 16-byte BLOB, bytes as a BLOB (an empty one stays an empty BLOB, not NULL).
struct SQLiteRawStatement {
    let statement: Statement
    private var parameter: Int32 = 1

    init(_ statement: Statement) {
        self.statement = statement
        sqlite3_reset(statement.sqliteStatement)
    }

    /// SQLite copies what it is given (the bytes live only for the call).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    mutating func bind(_ value: Value) {
        let handle = statement.sqliteStatement
        let index = parameter
        parameter += 1
        // A bind fails only for an index out of range or a statement in use: programming errors
        // that `step` then reports with SQLite's own message.
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .bool(let flag): sqlite3_bind_int64(handle, index, flag ? 1 : 0)
        case .int(let number): sqlite3_bind_int64(handle, index, number)
        case .double(let number): sqlite3_bind_double(handle, index, number)
        case .date(let date): sqlite3_bind_double(handle, index, date.timeIntervalSinceReferenceDate)
        case .string(var text):
            text.withUTF8 { utf8 in
                if let base = utf8.baseAddress {
                    _ = base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                        sqlite3_bind_text(handle, index, $0, Int32(utf8.count), Self.transient)
                    }
                } else {
                    _ = sqlite3_bind_text(handle, index, "", 0, Self.transient)
                }
            }
        case .uuid(let uuid):
            withUnsafeBytes(of: uuid.uuid) { bytes in
                _ = sqlite3_bind_blob(handle, index, bytes.baseAddress, 16, Self.transient)
            }
        case .data(let bytes):
            if bytes.isEmpty {
                sqlite3_bind_zeroblob(handle, index, 0)
            } else {
                bytes.withUnsafeBytes { raw in
                    _ = sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), Self.transient)
                }
            }
        case .decimal(let number):
            var key = DecimalForm.sortableKey(number)
            key.withUTF8 { utf8 in
                guard let base = utf8.baseAddress else { return }
                _ = base.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                    sqlite3_bind_text(handle, index, $0, Int32(utf8.count), Self.transient)
                }
            }
        case .array, .dictionary, .document:
            // Canonical JSON text (see `SQLiteValues`).
            parameter -= 1
            bind(.string(CollectionForm.text(value) ?? "null"))
        }
    }

    /// The row's ID, version, property values (by slot, in the table's column order) and the
    /// checksum over them (see `Checksum.record(id:version:)`).
    mutating func bindRow(_ record: Record, _ table: SQLiteLayout.Table) {
        bind(record.id.value)
        bind(.int(record.version))
        var checksum = Checksum.record(id: record.id, version: record.version)
        let record = record.inLayout(table.layout)  // the engine's records already are
        for value in record.slots {
            checksum.update(value)
            bind(value)
        }
        bind(.int(Int64(checksum.final)))
    }

    /// Steps through the result rows, handing each to `body` (read it with `sqlite3_column_*`).
    func forEachRow(_ db: Database, _ body: (OpaquePointer) throws -> Void) throws {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
            }
            try body(handle)
        }
    }

    /// The ID in column `column` of the current row, or nil when it is not an ID of `kind`.
    static func recordID(_ row: OpaquePointer, _ column: Int32, kind: RecordID.Kind) -> RecordID? {
        switch (sqlite3_column_type(row, column), kind) {
        case (SQLITE_BLOB, .uuid):
            guard sqlite3_column_bytes(row, column) == 16, let bytes = sqlite3_column_blob(row, column) else {
                return nil
            }
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: 16)) }
            return .uuid(UUID(uuid: raw))
        case (SQLITE_TEXT, .string):
            guard let text = sqlite3_column_text(row, column) else { return nil }
            let count = Int(sqlite3_column_bytes(row, column))
            return .string(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case (SQLITE_INTEGER, .int):
            return .int(sqlite3_column_int64(row, column))
        default:
            return nil
        }
    }

    /// Binds bytes as a BLOB (an empty one stays an empty BLOB, not NULL).
    mutating func bindBlob(_ bytes: [UInt8]) {
        let (handle, index) = (statement.sqliteStatement, parameter)
        parameter += 1
        if bytes.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
        } else {
            bytes.withUnsafeBytes { raw in
                _ = sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), Self.transient)
            }
        }
    }

    /// Runs the statement; SQLite's failure as GRDB's `DatabaseError`, which the backend maps to
    /// a typed error like any other.
    func step(_ db: Database) throws {
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
            sqlite3_reset(handle)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
        }
        sqlite3_reset(handle)
    }
}
