import Foundation
import GRDB
import GRDBSQLite
import StrataStorage
import Synchronization

/// The embedded default backend: SQLite through GRDB.
///
/// - `sqlite:PATH` opens (or creates) a file in WAL mode with a `DatabasePool`: concurrent readers,
///   one writer. `sqlite::memory:` opens a private in-memory database (a `DatabaseQueue`).
/// - Every fetch plan is answered in SQL (`FetchCapabilities.all`): predicates, to-one conditions
///   as `EXISTS` joins, `any`/`none` as `EXISTS`, sorting with the contract's null ordering, paging
///   and counting. Values are always bound arguments.
/// - Durability: `synchronous=NORMAL` by default (in WAL mode a power loss may lose the last
///   commits, never corrupt the file); ``Options/synchronous`` `.full` syncs every commit.
/// - Opening never modifies a file it cannot read as a Strata store of the same schema: a directory,
///   a file that is not SQLite, a truncated file, an SQLite database of another application, or a
///   store written with another schema are each a typed `StrataError`.
public final class SQLiteBackend: StorageBackend {
    /// How the store is opened.
    public struct Options: Sendable {
        /// SQLite's `synchronous` pragma: `.normal` (the default in WAL mode) or `.full`.
        public enum Synchronous: String, Sendable {
            /// Syncs at checkpoints: a commit survives a process crash; the last ones may be lost to a power cut.
            case normal = "NORMAL"
            /// Syncs at every commit: a commit survives a power cut.
            case full = "FULL"
        }

        /// Durability of each commit.
        public var synchronous: Synchronous = .normal
        /// How long a writer waits for another process's write lock before failing.
        public var busyTimeout: TimeInterval = 5
        /// The page cache of each connection, in MiB (SQLite's `cache_size`; pages are taken only
        /// as they are used). SQLite's own default, 2 MiB, makes every save into a large store
        /// re-read the index pages its random keys land on: at a million records, 64 MiB cut the
        /// per-record insert cost by about a quarter.
        public var cacheSizeMiB: Int = 64
        /// While a store has observers, how often it asks whether another process (or another
        /// connection) committed — `PRAGMA data_version`, no read of the data.
        public var externalCommitPollInterval: Duration = ExternalCommitPolling.defaultInterval

        /// Options with a durability level, a page cache size and the poll interval for other
        /// processes' commits.
        public init(
            synchronous: Synchronous = .normal, cacheSizeMiB: Int = 64,
            externalCommitPollInterval: Duration = ExternalCommitPolling.defaultInterval
        ) {
            self.synchronous = synchronous
            self.cacheSizeMiB = cacheSizeMiB
            self.externalCommitPollInterval = externalCommitPollInterval
        }
    }

    public let schema: Schema
    public let capabilities = FetchCapabilities(
        // Listed, not `allCases`: a feature added later is the engine's until this backend's SQL
        // answers it and the suite says so.
        predicateFeatures: [
            .equality, .ordering, .inList, .between, .text, .caseInsensitive, .diacriticInsensitive, .isNil, .logic,
            .toOne, .toMany, .elements, .documentPaths,
        ], sorting: true, paging: true, counting: true, aggregating: true,
        // SQLite's parser has a fixed stack of 100 entries (YYSTACKDEPTH): ten subqueries inside
        // each other, or 44 `NOT`s, fill it. Deeper parts are the engine's.
        maximumNesting: SQLiteBackend.maximumNesting)
    /// The deepest ``FilterExpression/nesting`` sent to SQLite: nine relationship steps.
    static let maximumNesting = 36
    /// The database file (`:memory:` for a private in-memory store).
    public let path: String
    let layout: SQLiteLayout
    let writer: any DatabaseWriter
    private let isClosed = Atomic<Bool>(false)
    /// `PRAGMA data_version` as last seen on the writer connection; it moves only when another
    /// connection (another `Store` on the file, or another process) commits.
    private let seenDataVersion = Atomic<Int64>(-1)

    /// The canonical path (nil for `:memory:`): other connections in this process share it.
    public let sharedIdentity: String?
    private let pollInterval: Duration

    /// Other processes (and other connections) may commit to a file; a private `:memory:`
    /// database has no one else.
    public var externalCommits: ExternalCommitPolling? {
        guard sharedIdentity != nil else { return nil }
        return ExternalCommitPolling(interval: pollInterval) { [weak self] in
            guard let self else { throw StrataError(.storeClosed, "the store has been closed") }
            return try await self.detectExternalCommits()
        }
    }

    /// A migration's shadow copy: its schema change commits at every checkpoint, and its commits
    /// are not synced (the copy is synced once, before it replaces the store).
    let isShadowCopy: Bool
    /// How it was opened (a shadow copy is opened alike).
    let options: Options

    private init(schema: Schema, path: String, writer: any DatabaseWriter, options: Options, isShadowCopy: Bool) {
        self.isShadowCopy = isShadowCopy
        self.options = options
        let pollInterval = options.externalCommitPollInterval
        self.schema = schema
        self.path = path
        self.pollInterval = pollInterval
        self.sharedIdentity = path == ":memory:" ? nil : "sqlite:" + Self.canonical(path)
        self.layout = SQLiteLayout(schema: schema)
        self.writer = writer
    }

    /// Registers the `sqlite:` scheme (`sqlite:PATH`, `sqlite::memory:`).
    public static func register(in registry: BackendRegistry = .shared, options: Options = Options()) {
        registry.register(
            BackendDescriptor(
                scheme: "sqlite", attach: { location in try storedDescription(path: location.path) },
                verify: { location, schema in try await SQLiteBackend.verify(path: location.path, schema: schema) }
            ) { location, schema in
                try await SQLiteBackend.open(path: location.path, schema: schema, options: options)
            })
    }

    /// The schema description the store at `path` holds, or `nil` when there is no store there
    /// (no file, an empty one; `:memory:` is always new). Reads without writing: no file is
    /// created, a hot journal is rolled back in a private copy, never in place.
    public static func storedDescription(path: String) throws -> SchemaDescription? {
        guard !path.isEmpty else { throw StrataError(.unsupportedStore, "sqlite: needs a path, or :memory:") }
        guard path != ":memory:" else { return nil }
        do {
            guard case .store(let description) = try inspectExistingFile(at: path) else { return nil }
            return try StoredSchema.attached(description: description, path: path)
        } catch {
            throw map(error, path: path)
        }
    }

    /// Opens or creates the store at `path` (`:memory:` for a private in-memory store).
    public static func open(path: String, schema: Schema, options: Options = Options()) async throws -> SQLiteBackend {
        try await open(path: path, schema: schema, options: options, isShadowCopy: false)
    }

    static func open(path: String, schema: Schema, options: Options, isShadowCopy: Bool) async throws -> SQLiteBackend {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(options.busyTimeout)
        let synchronous = isShadowCopy ? "OFF" : options.synchronous.rawValue
        let cacheKiB = max(1, options.cacheSizeMiB) * 1024
        configuration.prepareDatabase { db in
            db.add(function: SQLiteFunctions.fold())
            db.add(function: SQLiteFunctions.text())
            db.add(function: SQLiteFunctions.path())
            db.add(function: SQLiteFunctions.sum())
            db.add(function: SQLiteFunctions.average())
            try db.execute(sql: "PRAGMA synchronous = \(synchronous)")
            try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)")
            // Statement journals (a many-row INSERT keeps one, to undo itself alone if it fails)
            // and temporary indexes in memory: on files they were most of a large save's writes.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        let writer: any DatabaseWriter
        do {
            if path == ":memory:" {
                writer = try DatabaseQueue(configuration: configuration)
            } else {
                guard !path.isEmpty else {
                    throw StrataError(.unsupportedStore, "sqlite: needs a path, or :memory:")
                }
                try inspectExistingFile(at: path, schema: schema)
                writer = try DatabasePool(path: path, configuration: configuration)
            }
        } catch {
            throw map(error, path: path)
        }
        let backend = SQLiteBackend(
            schema: schema, path: path, writer: writer, options: options, isShadowCopy: isShadowCopy)
        do {
            try await backend.prepareLayout()
        } catch {
            // A refused open (another schema, say) leaves no connection behind: one left open
            // would keep the last close from removing the write-ahead log.
            try? await backend.close()
            throw error
        }
        return backend
    }

    private func prepareLayout() async throws {
        let layout = layout
        let schema = schema
        let path = path
        try await run {
            try await self.writer.write { db in
                guard try !Self.checkStore(db, schema: schema, path: path) else {
                    try Self.convertMetaTable(db)
                    return
                }
                for statement in layout.creationStatements() { try db.execute(sql: statement) }
                try db.execute(
                    sql:
                        "INSERT INTO \(SQLiteLayout.metaTable) (key, value) VALUES ('strata.sqlite.format', ?), "
                        + "('strata.schema.fingerprint', ?), (?, ?)",
                    arguments: [
                        Data(SQLiteLayout.formatVersion.utf8), Data(schema.fingerprint.utf8),
                        SchemaDescription.metadataKey, Data(SchemaDescription(schema).encoded()),
                    ])
            }
        }
    }

    /// `path` with its directory's symbolic links resolved, so two spellings of one file meet.
    static func canonical(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        return url.deletingLastPathComponent().resolvingSymlinksInPath().appendingPathComponent(url.lastPathComponent)
            .path
    }

    /// Whether another connection — a second `Store` on the same file, or another process — has
    /// committed since the last call (the first call only records the current state). History
    /// reads see such commits directly; this tells a caller that it should look.
    public func detectExternalCommits() async throws -> Bool {
        let version = try await run {
            try await self.writer.writeWithoutTransaction { db in
                try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
            }
        }
        let previous = seenDataVersion.exchange(version, ordering: .acquiringAndReleasing)
        return previous >= 0 && previous != version
    }

    /// Rebuilds the database file without its free pages (`VACUUM`), then empties the write-ahead
    /// log into it. Atomic like any SQLite transaction: a process killed in the middle leaves the
    /// store as it was before, with every save.
    public func compact() async throws {
        try await run {
            try await self.writer.writeWithoutTransaction { db in
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws
        -> T
    {
        let layout = layout
        return try await run {
            try await self.writer.read { db in
                let transaction = SQLiteReadTransaction(db: db, layout: layout)
                let value = try body(transaction)
                if transaction.metadataBytes >= Self.bulkBytes { Self.releaseCache(db) }
                return value
            }
        }
    }

    /// Metadata moved by one transaction past which its pages leave the page cache afterwards:
    /// a file's chunk (256 KiB) is one, a record workload's metadata (history entries, counters)
    /// stays below it. The cache keeps serving records; a file moving through the store does not
    /// fill it (`cacheSizeMiB` per connection) with pages read once.
    static let bulkBytes = 256 << 10

    /// Frees the connection's unused cache pages (SQLite's `sqlite3_db_release_memory`).
    static func releaseCache(_ db: Database) {
        if let connection = db.sqliteConnection { _ = sqlite3_db_release_memory(connection) }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws
        -> T
    {
        let layout = layout
        return try await run {
            let (value, bulk) = try await self.writer.write { db in
                let transaction = SQLiteWriteTransaction(db: db, layout: layout)
                return (try body(transaction), transaction.metadataBytes >= Self.bulkBytes)
            }
            // Committed pages are clean: now they can go.
            if bulk { try await self.writer.writeWithoutTransaction { Self.releaseCache($0) } }
            return value
        }
    }

    public func close() async throws {
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // GRDB's close waits, blocking, for every reader to come back: off the cooperative
        // threads, so the reads it waits for (observers' among them) can finish.
        let (writer, path) = (writer, path)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                do {
                    // A clean close leaves a self-contained file: the write-ahead log is emptied
                    // into the database and truncated, so copying the one file copies the store.
                    // (A reader in another connection can hold the log's end back; the last
                    // connection to close then checkpoints it.)
                    if let pool = writer as? DatabasePool {
                        // Readers close first (GRDB closes the writer first): SQLite removes the
                        // log only when the last connection to close can write.
                        pool.releaseMemory()
                        _ = try? writer.writeWithoutTransaction { db in
                            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                        }
                    }
                    try writer.close()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: Self.map(error, path: path))
                }
            }
        }
    }

    func run<T>(_ body: () async throws -> T) async throws -> T {
        if isClosed.load(ordering: .acquiring) { throw StrataError(.storeClosed, "the store has been closed") }
        do {
            return try await body()
        } catch {
            throw Self.map(error, path: path)
        }
    }

    /// SQLite failures as typed errors; Strata's own errors pass through.
    static func map(_ error: any Error, path: String) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        let message = "\(path): \(error.message ?? error.resultCode.description)"
        switch error.resultCode.primaryResultCode {
        case .SQLITE_NOTADB: return StrataError(.notAStore, underlying: error, message)
        case .SQLITE_CORRUPT: return StrataError(.corruptStore, underlying: error, message)
        case .SQLITE_CONSTRAINT: return StrataError(.uniqueViolation, underlying: error, message)
        case .SQLITE_FULL:
            return StrataError(
                .diskFull, underlying: error, "\(message): free space and retry; nothing of this write was kept")
        case .SQLITE_IOERR where StoreFiles.isNearlyFull(at: path):
            // A write the file system could not take for want of room (a WAL frame, the wal-index).
            return StoreFiles.writeFailure(error, at: path, message)
        case .SQLITE_MISUSE where error.message?.contains("closed") == true:
            return StrataError(.storeClosed, underlying: error, message)
        default: return StrataError(.storageFailure, underlying: error, message)
        }
    }
}
