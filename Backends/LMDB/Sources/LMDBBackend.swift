import CLMDB
import Dispatch
import Foundation
import StrataStorage
import Synchronization

/// A memory-mapped key-value backend over LMDB (`liblmdb`).
///
/// - `lmdb:PATH` names a directory holding LMDB's `data.mdb` and `lock.mdb` (created if absent).
/// - Layout: a database per entity keyed by record ID (a compact binary record, `RecordCodec`),
///   a DUPSORT index database per indexed or unique attribute and per to-one reference, link lists
///   with a DUPSORT reverse index, and `meta` (format, schema fingerprint, counters, history). Keys
///   are order-preserving encodings, so LMDB's byte order is the contract's order.
/// - Queries: equality, lists and ranges over indexed attributes are answered from the indexes;
///   text and relationship conditions are declined to the engine (see ``capabilities``).
/// - Concurrency: one writer on a dedicated serial queue (an LMDB write transaction stays on one
///   thread from begin to commit), any number of concurrent readers.
/// - The map grows by itself: a write that hits `MDB_MAP_FULL` is rolled back, the map doubled, and
///   the save run again, so a user never sees that error.
/// - Durable by default. ``Options/noSync`` skips the fsync at commit: a crash of the machine (not
///   of the process) may then lose the last commits or, with a file system that reorders writes,
///   corrupt the store.
public final class LMDBBackend: StorageBackend {
    /// How the environment is opened.
    public struct Options: Sendable {
        /// The map size to start with, in bytes; it doubles whenever a write needs more. The map is
        /// address space, not disk: the file grows only by the pages written. A write that outgrows
        /// the map runs twice (rolled back, the map doubled, run again), so the default, 1 GiB,
        /// leaves room for large saves from the start.
        public var initialMapSize: Int
        /// Skip the fsync at commit (see the type's notes for what it risks).
        public var noSync: Bool

        /// Walk every page in a child process before this process maps the file (see
        /// ``LMDBBackend/verify(path:schema:timeout:)``): a store that liblmdb would crash on —
        /// a zeroed page trips its assertions, a flipped page number sends it outside the map — is
        /// then `corruptStore` instead of a crash of this process. **On by default.**
        ///
        /// It costs one read of the whole data file when the environment is first opened in this
        /// process (another handle onto an environment this process has open skips it), in a
        /// forked child that holds a reader slot meanwhile. Measured on a clean store of 1M
        /// records, it is the price of the contract that a damaged file never crashes the host
        /// process (the README's trust model gives the figures). Turn it off only for files this
        /// process or a process you trust wrote and that no disk, copy or person could have damaged.
        public var verifyStructureAtOpen: Bool

        /// While a store has observers, how often it asks whether another process committed
        /// (LMDB's last transaction ID, read from the shared lock file).
        public var externalCommitPollInterval: Duration

        /// Options; the defaults are durable, walk a store's pages before mapping it, and start with a
        /// 1 GiB map.
        public init(
            initialMapSize: Int = 1 << 30, noSync: Bool = false, verifyStructureAtOpen: Bool = true,
            externalCommitPollInterval: Duration = ExternalCommitPolling.defaultInterval
        ) {
            self.initialMapSize = initialMapSize
            self.noSync = noSync
            self.verifyStructureAtOpen = verifyStructureAtOpen
            self.externalCommitPollInterval = externalCommitPollInterval
        }
    }

    public let schema: Schema
    /// The environment directory.
    public let path: String
    public let capabilities = FetchCapabilities(
        predicateFeatures: [.equality, .ordering, .inList, .between, .isNil, .logic], sorting: true, paging: true,
        counting: true)

    let environment: LMDBEnvironment
    private var writer: DispatchQueue { environment.writer }
    private let isClosed = Atomic<Bool>(false)
    private let pollInterval: Duration
    /// The last transaction ID this handle's poll saw.
    private let seenTransactionID = Atomic<Int>(-1)

    /// Handles onto one environment in this process share it (and wake each other's observers).
    public var sharedIdentity: String? { "lmdb:" + LMDBEnvironment.canonical(path) }

    /// Another process may commit to the environment: the poll compares the transaction ID a read
    /// begun now starts at with the one it saw before. Its own commits move it too; that costs one
    /// history read that finds nothing new.
    ///
    /// Not `mdb_env_info`'s last transaction ID: a committing writer writes and syncs its meta page
    /// before it publishes the ID new readers begin at, and a yes read from the meta page in between
    /// was followed by a history read that found nothing — the commit never reached observers.
    public var externalCommits: ExternalCommitPolling? {
        ExternalCommitPolling(interval: pollInterval) { [weak self] in
            guard let self else { throw StrataError(.storeClosed, "the store has been closed") }
            try self.checkOpen()
            let last = try self.readRaw { Int(mdb_txn_id($0.txn)) }
            let previous = self.seenTransactionID.exchange(last, ordering: .acquiringAndReleasing)
            return previous >= 0 && previous != last
        }
    }
    /// Set at open: a store created since records carry checksums refuses records without one.

    static let formatVersion = "1"

    /// How it was opened (a shadow copy is opened alike, unsynced).
    let options: Options
    /// A migration's shadow copy: its schema change commits at every checkpoint.
    let isShadowCopy: Bool

    init(
        schema: Schema, path: String, environment: LMDBEnvironment, options: Options = Options(),
        isShadowCopy: Bool = false
    ) {
        self.options = options
        self.isShadowCopy = isShadowCopy
        let pollInterval = options.externalCommitPollInterval
        self.schema = schema
        self.path = path
        self.environment = environment
        self.pollInterval = pollInterval
    }

    /// Registers the `lmdb:` scheme.
    public static func register(in registry: BackendRegistry = .shared, options: Options = Options()) {
        registry.register(
            BackendDescriptor(
                scheme: "lmdb",
                attach: { location in try await storedDescription(path: location.path, options: options) },
                verify: { location, schema in try await LMDBBackend.verify(path: location.path, schema: schema) }
            ) { location, schema in
                try await LMDBBackend.open(path: location.path, schema: schema, options: options)
            })
    }

    /// Opens or creates the store in the directory at `path`; bad files are typed errors.
    public static func open(path: String, schema: Schema, options: Options = Options()) async throws -> LMDBBackend {
        try await open(path: path, schema: schema, options: options, isShadowCopy: false)
    }

    static func open(path: String, schema: Schema, options: Options, isShadowCopy: Bool) async throws -> LMDBBackend {
        guard !path.isEmpty else { throw StrataError(.unsupportedStore, "lmdb: needs a directory path") }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StrataError(.notAStore, "\(path) is a file; an LMDB store is a directory")
            }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw StrataError(.storageFailure, underlying: error, "\(path) cannot be created")
            }
        }
        let layout = LMDBLayout(schema: schema)
        let environment = try await checkedEnvironment(path: path, options: options, databases: layout.databases.count)
        let backend = LMDBBackend(
            schema: schema, path: path, environment: environment, options: options, isShadowCopy: isShadowCopy)
        try await backend.prepare(layout)
        return backend
    }

    /// Checks the store's format and schema, creating the databases of a new store. A store written
    /// with another schema is refused before anything is created in it.
    private func prepare(_ layout: LMDBLayout) async throws {
        let fingerprint = Array(schema.fingerprint.utf8)
        let format = Array(Self.formatVersion.utf8)
        let path = path
        try await onWriter { environment in
            do {
                try environment.openDatabases([(LMDBLayout.meta, false)], create: false)
            } catch let status as LMDBStatus where status.code == MDB_NOTFOUND {
                // No Strata metadata: a new environment, or someone else's (never written to).
                guard try environment.mainDatabaseIsEmpty() else {
                    throw StrataError(.notAStore, "\(path) is an LMDB environment but not a Strata store")
                }
                try environment.openDatabases([(LMDBLayout.meta, false)], create: true)
            }
            let existing = try self.readRaw { try $0.metadata(MetadataKeys.lmdbFormat) }
            if let existing {
                guard existing == format else {
                    throw StrataError(
                        .incompatibleStore,
                        "\(path) was written in LMDB store format \(String(decoding: existing, as: UTF8.self))")
                }
                let description = try self.readRaw { try $0.metadata(SchemaDescription.metadataKey) }
                try StoredSchema.check(description: description, schema: self.schema, path: path)
            }
            try environment.openDatabases(layout.databases, create: true)
            if existing == nil {
                try self.writeRaw { tx in
                    try tx.setMetadata(SchemaDescription.metadataKey, SchemaDescription(self.schema).encoded())
                    try tx.setMetadata(MetadataKeys.lmdbFormat, format)
                    try tx.setMetadata(MetadataKeys.schemaFingerprint, fingerprint)
                }
            }
        }
    }

    // MARK: StorageBackend

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws
        -> T
    {
        try checkOpen()
        do {
            return try readRaw(body)
        } catch {
            throw Self.map(error, path: path)
        }
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws
        -> T
    {
        try checkOpen()
        return try await onWriter { _ in try self.writeRaw(body) }
    }

    /// Closes this handle; the last handle of the environment in this process closes it.
    public func close() async throws {
        if !isClosed.exchange(true, ordering: .acquiringAndReleasing) { environment.release() }
    }

    deinit {
        if !isClosed.exchange(true, ordering: .acquiringAndReleasing) { environment.release() }
    }

    /// Readers whose process died, cleared from the lock file (also done at every open).
    public func clearStaleReaders() -> Int { environment.clearStaleReaders() }

    /// The current map size in bytes (it grows by itself).
    public var mapSize: Int { environment.mapSize }

    // MARK: Transactions

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) { throw StrataError(.storeClosed, "the store has been closed") }
    }

    func onWriter<T: Sendable>(_ body: @escaping @Sendable (LMDBEnvironment) throws -> T) async throws -> T {
        let environment = environment
        let path = path
        return try await withCheckedThrowingContinuation { continuation in
            writer.async {
                do {
                    continuation.resume(returning: try body(environment))
                } catch {
                    continuation.resume(throwing: Self.map(error, path: path))
                }
            }
        }
    }

    func readRaw<T>(_ body: (LMDBReadTransaction) throws -> T) throws -> T {
        while true {
            environment.resizeLock.readLock()
            if environment.isClosed {
                environment.resizeLock.unlock()
                throw StrataError(.storeClosed, "the store has been closed")
            }
            var txn: OpaquePointer?
            let code = mdb_txn_begin(environment.handle, nil, UInt32(MDB_RDONLY), &txn)
            if code == MDB_MAP_RESIZED {
                environment.resizeLock.unlock()
                try environment.setMapSize(0)
                continue
            }
            defer {
                if let txn { mdb_txn_abort(txn) }
                environment.resizeLock.unlock()
            }
            try check(code)
            guard let txn else { throw LMDBStatus(code: ENOMEM) }
            return try body(
                LMDBReadTransaction(
                    txn: txn, environment: environment, schema: schema))
        }
    }

    /// Runs one write transaction on the calling (writer) thread; on `MDB_MAP_FULL` rolls back,
    /// doubles the map and runs `body` again from the start.
    func writeRaw<T>(_ body: (LMDBWriteTransaction) throws -> T) throws -> T {
        while true {
            environment.resizeLock.readLock()
            if environment.isClosed {
                environment.resizeLock.unlock()
                throw StrataError(.storeClosed, "the store has been closed")
            }
            var txn: OpaquePointer?
            let begin = mdb_txn_begin(environment.handle, nil, 0, &txn)
            guard begin == 0, let txn else {
                environment.resizeLock.unlock()
                if begin == MDB_MAP_RESIZED {
                    try environment.setMapSize(0)
                    continue
                }
                try check(begin)
                throw LMDBStatus(code: ENOMEM)
            }
            let result: T
            do {
                result = try body(
                    LMDBWriteTransaction(
                        txn: txn, environment: environment, schema: schema))
            } catch let status as LMDBStatus where status.isMapFull {
                mdb_txn_abort(txn)
                environment.resizeLock.unlock()
                try environment.setMapSize(environment.mapSize * 2)
                continue
            } catch {
                mdb_txn_abort(txn)
                environment.resizeLock.unlock()
                throw error
            }
            // mdb_txn_commit frees the transaction whatever it returns.
            let commit = mdb_txn_commit(txn)
            environment.resizeLock.unlock()
            if commit == MDB_MAP_FULL {
                try environment.setMapSize(environment.mapSize * 2)
                continue
            }
            try check(commit)
            return result
        }
    }

    /// LMDB status codes as typed errors; Strata's own errors pass through.
    static func map(_ error: any Error, path: String) -> any Error {
        guard let status = error as? LMDBStatus else { return error }
        let message = "\(path): \(status)"
        switch status.code {
        case MDB_INVALID, MDB_VERSION_MISMATCH: return StrataError(.notAStore, underlying: status, message)
        case MDB_CORRUPTED, MDB_PAGE_NOTFOUND: return StrataError(.corruptStore, underlying: status, message)
        // LMDB reports a short write of its pages as EIO: on a file system left without room,
        // that is a full disk, not a failing one.
        case ENOSPC, EDQUOT:
            return StrataError(.diskFull, underlying: status, "\(message): the disk is full; free space and retry")
        case EIO where StoreFiles.isNearlyFull(at: path):
            return StrataError(.diskFull, underlying: status, "\(path): the disk is full; free space and retry")
        default: return StrataError(.storageFailure, underlying: status, message)
        }
    }
}
