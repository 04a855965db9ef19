import Foundation
import GRDB
import StrataStorage

/// The file side of opening a store: reading an existing file without writing to it, and
/// recovering a copy when a killed write left a hot journal. A store of another format than 1 is
/// refused, naming its format.
extension SQLiteBackend {
    /// Reads an existing file without writing to it: any reason it is not a store of this schema
    /// is reported before a read-write connection (which switches the file to WAL) is opened.
    static func inspectExistingFile(at path: String, schema: Schema) throws {
        if case .store(let description) = try inspectExistingFile(at: path) {
            try StoredSchema.check(description: description, schema: schema, path: path)
        }
    }

    /// What the file at `path` holds, read without writing to it (the backend's attach): nothing
    /// (no file, an empty one), or a store of format 1 and the schema description it records.
    static func inspectExistingFile(at path: String) throws -> SQLiteFileContents {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .empty }
        if isDirectory.boolValue {
            throw StrataError(.notAStore, "\(path) is a directory, not an SQLite store")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StrataError(.storageFailure, "\(path) cannot be read")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size == 0 { return .empty }
        guard header.count >= 100, header.prefix(16) == Data("SQLite format 3\0".utf8) else {
            throw StrataError(.notAStore, "\(path) is not an SQLite database")
        }
        // The header records the database size in pages (valid when the two change counters agree).
        let pageSizeField = Int(header[16]) << 8 | Int(header[17])
        let pageSize = pageSizeField == 1 ? 65_536 : pageSizeField
        let pages = header[28..<32].reduce(0) { $0 << 8 | Int($1) }
        let counterMatches = header[24..<28] == header[92..<96]
        let hasWAL = FileManager.default.fileExists(atPath: path + "-wal")
        if counterMatches, pages > 0, pages * pageSize > size, !hasWAL {
            throw StrataError(
                .corruptStore,
                "\(path) is truncated: the header declares \(pages * pageSize) bytes, the file has \(size)")
        }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db in try contents(db, path: path) }
        } catch let error as DatabaseError where hasHotJournal(path) {
            // A write was interrupted (a killed process, often during the first open, when the
            // file is switched to WAL) and left a hot rollback journal. A read-only connection
            // cannot roll it back, so every later open would fail. Recover a copy instead: if the
            // copy is a store of this schema, the read-write open that follows rolls the original
            // back the same way; if not, the original files are left exactly as they were.
            return try inspectRecoveredCopy(of: path, readOnlyError: error)
        }
    }

    /// Whether a non-empty rollback journal sits beside the database.
    static func hasHotJournal(_ path: String) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-journal")[.size] as? Int) ?? 0) > 0
    }

    /// Copies the database and its journal to a private directory, opens the copy read-write (so
    /// SQLite rolls the journal back there) and checks that copy; the copy is then removed.
    static func inspectRecoveredCopy(of path: String, readOnlyError: DatabaseError) throws -> SQLiteFileContents {
        try withPrivateCopy(
            of: path, suffixes: ["-journal"],
            failure: { error in
                StrataError(
                    .storageFailure, underlying: readOnlyError,
                    "\(path) has an interrupted write to recover, and it could not be copied: \(error)")
            }
        ) { copy in try checkRecovered(copy, original: path) }
    }

    /// Copies the database and those of its side files (`-wal`, `-journal`) that exist into a
    /// private directory, runs `body` on the copy's path, then removes the directory.
    static func withPrivateCopy<T>(
        of path: String, suffixes: [String], failure: (any Error) -> StrataError, _ body: (String) async throws -> T
    ) async throws -> T {
        let (directory, copy) = try privateCopy(of: path, suffixes: suffixes, failure: failure)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(copy)
    }

    static func withPrivateCopy<T>(
        of path: String, suffixes: [String], failure: (any Error) -> StrataError, _ body: (String) throws -> T
    ) throws -> T {
        let (directory, copy) = try privateCopy(of: path, suffixes: suffixes, failure: failure)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(copy)
    }

    private static func privateCopy(of path: String, suffixes: [String], failure: (any Error) -> StrataError) throws
        -> (URL, String)
    {
        let manager = FileManager.default
        let directory = manager.temporaryDirectory.appendingPathComponent("strata-copy-\(UUID().uuidString)")
        let copy = directory.appendingPathComponent("store.sqlite").path
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            try manager.copyItem(atPath: path, toPath: copy)
            for suffix in suffixes where manager.fileExists(atPath: path + suffix) {
                try manager.copyItem(atPath: path + suffix, toPath: copy + suffix)
            }
        } catch {
            try? manager.removeItem(at: directory)
            throw failure(error)
        }
        return (directory, copy)
    }

    private static func checkRecovered(_ copy: String, original path: String) throws -> SQLiteFileContents {
        let queue = try DatabaseQueue(path: copy)
        defer { try? queue.close() }
        do {
            return try queue.read { db in try contents(db, path: path) }
        } catch let error as DatabaseError {
            throw map(error, path: path)
        }
    }

    /// Whether the database is an empty file (`false`), a Strata store of this schema (`true`), or an error.
    @discardableResult
    static func checkStore(_ db: Database, schema: Schema, path: String) throws -> Bool {
        guard case .store(let description) = try contents(db, path: path) else { return false }
        try StoredSchema.check(description: description, schema: schema, path: path)
        return true
    }

    /// Rewrites a metadata table made `WITHOUT ROWID` (stores written before files out of line) as
    /// the rowid table new stores have (``SQLiteLayout/metaTableStatement(_:)``), in the open's
    /// write transaction: the same keys and values, the same SQL reads them.
    static func convertMetaTable(_ db: Database) throws {
        guard try metaTableIsWithoutRowid(db) else { return }
        try rebuildMetaTable(db, as: SQLiteLayout.metaTableStatement)
    }

    /// Whether the metadata table is a `WITHOUT ROWID` table.
    static func metaTableIsWithoutRowid(_ db: Database) throws -> Bool {
        let sql = try String.fetchOne(
            db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
            arguments: [SQLiteLayout.metaTable])
        return sql?.uppercased().contains("WITHOUT ROWID") ?? false
    }

    /// Copies the metadata table into one `statement` creates (given its name), then puts it in
    /// the old one's place.
    static func rebuildMetaTable(_ db: Database, as statement: (String) -> String) throws {
        let rebuilt = SQLiteLayout.metaTable + "_rebuilt"
        try db.execute(sql: statement(rebuilt))
        try db.execute(sql: "INSERT INTO \(rebuilt) (key, value) SELECT key, value FROM \(SQLiteLayout.metaTable)")
        try db.execute(sql: "DROP TABLE \(SQLiteLayout.metaTable)")
        try db.execute(sql: "ALTER TABLE \(rebuilt) RENAME TO \(SQLiteLayout.metaTable)")
    }

    /// What an open database holds: nothing, or a Strata store of format 1 and its schema
    /// description; another database or format is a typed error.
    static func contents(_ db: Database, path: String) throws -> SQLiteFileContents {
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        if tables.isEmpty { return .empty }
        guard tables.contains(SQLiteLayout.metaTable) else {
            throw StrataError(.notAStore, "\(path) is an SQLite database but not a Strata store")
        }
        let stored = try Row.fetchAll(
            db,
            sql:
                "SELECT key, value FROM \(SQLiteLayout.metaTable) WHERE key IN ('strata.sqlite.format', "
                + "'strata.schema.fingerprint', '\(SchemaDescription.metadataKey)')"
        )
        var meta: [String: String] = [:]
        var description: [UInt8]?
        for row in stored {
            if let key = String.fromDatabaseValue(row[0]), let bytes = SQLiteReadTransaction.bytes(row[1]) {
                if key == SchemaDescription.metadataKey {
                    description = bytes
                } else {
                    meta[key] = String(decoding: bytes, as: UTF8.self)
                }
            }
        }
        guard let format = meta[MetadataKeys.sqliteFormat] else {
            throw StrataError(.corruptStore, "\(path) has no Strata format version")
        }
        guard format == SQLiteLayout.formatVersion else {
            throw StrataError(
                .incompatibleStore,
                "\(path) was written in SQLite store format \(format); this version reads \(SQLiteLayout.formatVersion)"
            )
        }
        return .store(description: description)
    }
}

/// What an SQLite file holds, read without writing to it.
enum SQLiteFileContents {
    /// No file, an empty file or a database without tables: an open creates the store.
    case empty
    /// A Strata store of format 1, with the schema description it records (`nil`: none).
    case store(description: [UInt8]?)
}
