import Foundation
import StrataInMemory
import StrataStorage
import Synchronization

/// A human-readable, crash-safe store in one JSON document plus an append-only journal.
///
/// - `json:PATH` is the document; `PATH.journal` holds the saves committed since the last
///   compaction (one JSON line each, fsync'd before the save returns); `PATH.lock` carries an
///   advisory `flock` so one process writes.
/// - A save costs in proportion to the change: it appends one journal line. Compaction (when the
///   journal outgrows the document, on close, or on ``compact()``) writes the document to a temp
///   file, fsyncs it, renames it over the old one, fsyncs the directory, then truncates the journal.
///   A crash at any step reopens with every committed save: journal entries are full states, so
///   replaying them over a document that already has them changes nothing.
/// - Recovery replays the journal; a torn last line (a crash mid-append, never acknowledged) is
///   dropped and reported (``recoveredTornJournalTail``, ``journalRecovery``). Damage at the end
///   of the journal — zeroed pages, a closed line that fails its checksum, complete saves after
///   the first unreadable byte — is not a torn append: the open refuses with `corruptStore`,
///   naming how many acknowledged saves the damaged bytes are shown to hold and the last history
///   token kept, unless ``Options/keepReadableAfterDamage`` asks to keep what is readable. Anything
///   corrupt before readable entries is a typed error naming the byte offset.
/// - The live state is held by an in-memory backend: concurrent reads, equality indexes, rollback.
///
/// Opening the same path twice in one process hands back a second handle onto the same open store
/// (as SQLite and LMDB do): both work and see each other's writes, and the files are compacted and
/// unlocked when the last handle closes. Another *process* is refused while one holds the store.
public final class JSONFileBackend: StorageBackend {
    public let schema: Schema
    /// The document; the journal and lock sit beside it.
    public let path: String
    public var capabilities: FetchCapabilities { memory.capabilities }
    /// Handles opened on the same path in this process share one store and wake each other's
    /// observers; other processes are locked out, so there is nothing to poll for.
    public var sharedIdentity: String? { memory.sharedIdentity }
    /// Whether opening found and dropped a torn last journal entry (an unacknowledged append).
    public var recoveredTornJournalTail: Bool { shared.recovery?.kind == .tornAppend }
    /// What the open that loaded this store dropped from the end of its journal, if anything.
    public var journalRecovery: JSONJournalRecovery? { shared.recovery }

    /// How a store is opened.
    public struct Options: Sendable {
        /// Open a store whose journal ends in damage (not a torn append) by keeping every entry
        /// before the damage and dropping the rest; ``JSONFileBackend/journalRecovery`` then says
        /// how many acknowledged saves were shown to be lost and the last history token kept.
        /// Off by default: such a store is refused with `corruptStore`, its files untouched.
        public var keepReadableAfterDamage: Bool

        /// Options; the default refuses a damaged journal.
        public init(keepReadableAfterDamage: Bool = false) {
            self.keepReadableAfterDamage = keepReadableAfterDamage
        }
    }

    private let shared: OpenFile
    var memory: InMemoryBackend { shared.memory }
    var files: Files { shared.files }
    private let isClosed = Atomic<Bool>(false)

    /// One open store in this process: its live state and its files, shared by every handle.
    final class OpenFile: Sendable {
        let memory: InMemoryBackend
        let files: Files
        let recovery: JSONJournalRecovery?

        init(memory: InMemoryBackend, files: Files, recovery: JSONJournalRecovery?) {
            self.memory = memory
            self.files = files
            self.recovery = recovery
        }
    }

    /// The open journal and lock, used only inside the in-memory backend's write closure (which
    /// serialises writers) or after every write has finished (close).
    final class Files: Sendable {
        let journal: Mutex<FileHandle>
        let lockDescriptor: Int32
        let journalBytes = Atomic<Int>(0)
        let documentBytes = Atomic<Int>(0)
        /// The journal size past which an automatic compaction that failed is tried again.
        let compactionRetryBytes = Atomic<Int>(0)
        /// Why the last automatic compaction failed, while it has not succeeded since.
        let compactionFailure = Mutex<StrataError?>(nil)
        /// Set when a failed append could not be cut back off the journal: writes are refused.
        let journalUnsound = Atomic<Bool>(false)
        /// Where saves and compactions run (off the cooperative threads).
        let work = FileWorkExecutor(label: "strata.jsonfile.work")

        init(journal: FileHandle, lockDescriptor: Int32) {
            self.journal = Mutex(journal)
            self.lockDescriptor = lockDescriptor
        }

        deinit {
            journal.withLock { try? $0.close() }
            flock(lockDescriptor, LOCK_UN)
            Foundation.close(lockDescriptor)
        }
    }

    /// Registers the `json:` scheme.
    public static func register(in registry: BackendRegistry = .shared, options: Options = Options()) {
        registry.register(
            BackendDescriptor(
                scheme: "json", attach: { location in try storedDescription(path: location.path) },
                verify: { location, schema in try await JSONFileBackend.verify(path: location.path, schema: schema) }
            ) { location, schema in
                try await JSONFileBackend.open(path: location.path, schema: schema, options: options)
            })
    }

    private init(schema: Schema, path: String, shared: OpenFile) {
        self.schema = schema
        self.path = path
        self.shared = shared
    }

    static func journalPath(_ path: String) -> String { path + ".journal" }

    /// Opens or creates the store at `path`, taking the write lock and replaying the journal. A
    /// path this process already has open gives another handle onto the same store.
    public static func open(
        path: String, schema: Schema, options: Options = Options()
    ) async throws -> JSONFileBackend {
        guard !path.isEmpty else { throw StrataError(.unsupportedStore, "json: needs a file path") }
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StrataError(.notAStore, "\(path) is a directory, not a JSON store")
        }
        let shared = try await OpenFiles.acquire(path: path, schema: schema) {
            try await openFile(path: path, schema: schema, options: options)
        }
        return JSONFileBackend(schema: schema, path: path, shared: shared)
    }

    private static func openFile(path: String, schema: Schema, options: Options) async throws -> OpenFile {
        // One writer process: an exclusive advisory lock on a side file, never on the document.
        let lockDescriptor = Foundation.open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockDescriptor >= 0 else {
            throw StrataError(.storageFailure, "\(path).lock cannot be created (errno \(errno))")
        }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = lockHolder(lockDescriptor).map { "process \($0)" } ?? "another process"
            Foundation.close(lockDescriptor)
            throw StrataError(
                .storeInUse,
                "\(path) is open in \(holder) (a JSON store has one writer process; this "
                    + "process may open it again)")
        }
        // Who holds the lock, for the error another process gets.
        let pid = Array(String(getpid()).utf8)
        _ = ftruncate(lockDescriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(lockDescriptor, $0.baseAddress, $0.count, 0) }
        do {
            return try await openLocked(path: path, schema: schema, options: options, lockDescriptor: lockDescriptor)
        } catch {
            flock(lockDescriptor, LOCK_UN)
            Foundation.close(lockDescriptor)
            throw error
        }
    }

    /// The process ID the lock's holder wrote into the lock file, when it reads as one.
    private static func lockHolder(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes.prefix(count), as: UTF8.self))
    }

    private static func openLocked(
        path: String, schema: Schema, options: Options, lockDescriptor: Int32
    ) async throws -> OpenFile {
        let fileManager = FileManager.default
        try? fileManager.removeItem(atPath: path + ".tmp")  // a compaction that never reached its rename
        var operations: [JSONOperation] = []
        var documentSize = 0
        if let data = fileManager.contents(atPath: path) {
            documentSize = data.count
            operations = try JSONDocument.operations(data, path: path, schema: schema)
        }
        let journalData = fileManager.contents(atPath: journalPath(path)) ?? Data()
        let (replayed, tail) = try replay(journalData, path: journalPath(path), schema: schema)
        operations += replayed

        let memory = try await rebuild(operations, schema: schema)
        let recovery = try await recovery(from: tail, of: memory, path: path, options: options)
        // The shape a new store holds, kept with it (an existing one's was checked above).
        try await memory.write { tx in
            if try tx.metadata(SchemaDescription.metadataKey) == nil {
                try tx.setMetadata(SchemaDescription.metadataKey, SchemaDescription(schema).encoded())
            }
        }

        if !fileManager.fileExists(atPath: path) {
            let empty = try await memory.read { try JSONDocument.encode(from: $0) }
            try writeAtomically(empty, to: path)
            documentSize = empty.count
        }
        if !fileManager.fileExists(atPath: journalPath(path)) {
            guard fileManager.createFile(atPath: journalPath(path), contents: nil) else {
                throw StrataError(.storageFailure, "\(journalPath(path)) cannot be created")
            }
        }
        guard let journal = FileHandle(forUpdatingAtPath: journalPath(path)) else {
            throw StrataError(.storageFailure, "\(journalPath(path)) cannot be opened for writing")
        }
        do {
            // Drop a torn tail so the next entry starts on a clean line.
            if tail.kind != .none { try journal.truncate(atOffset: UInt64(tail.offset)) }
            try journal.seekToEnd()
        } catch {
            throw StrataError(.storageFailure, underlying: error, "\(journalPath(path)) cannot be written")
        }
        let files = Files(journal: journal, lockDescriptor: lockDescriptor)
        files.journalBytes.store(tail.offset, ordering: .relaxed)
        files.documentBytes.store(documentSize, ordering: .relaxed)
        return OpenFile(memory: memory, files: files, recovery: recovery)
    }

    /// The live state the document's and journal's operations describe.
    static func rebuild(_ operations: [JSONOperation], schema: Schema) async throws -> InMemoryBackend {
        let memory = InMemoryBackend(schema: schema)
        try await memory.write { tx in for operation in operations { try operation.apply(to: tx) } }
        return memory
    }

    /// Writes to a temp file, fsyncs it, renames it over `path`, fsyncs the directory.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        // A temp file left by a failed write would hold the room a full disk lacks.
        var written = false
        defer { if !written { unlink(temporary) } }
        do {
            guard FileManager.default.createFile(atPath: temporary, contents: nil),
                let handle = FileHandle(forWritingAtPath: temporary)
            else {
                throw StrataError(.storageFailure, "\(temporary) cannot be created")
            }
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, path) == 0 else {
                throw StrataError(.storageFailure, "rename to \(path) failed (errno \(errno))")
            }
            written = true
            let directory = (path as NSString).deletingLastPathComponent
            let descriptor = Foundation.open(directory.isEmpty ? "." : directory, O_RDONLY)
            if descriptor >= 0 {
                fsync(descriptor)
                Foundation.close(descriptor)
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StoreFiles.writeFailure(error, at: path, "\(path) cannot be written")
        }
    }

    // MARK: StorageBackend

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws
        -> T
    {
        try checkOpen()
        return try await memory.read(body)
    }

    /// Closes this handle. The last handle of the process compacts and releases the lock. Later
    /// calls on this handle fail with `StrataError.Code.storeClosed`.
    public func close() async throws {
        guard isClosed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        guard OpenFiles.release(path: path) else { return }
        let (memory, files, path) = (memory, files, path)
        if files.journalBytes.load(ordering: .relaxed) > 0 {
            // The journal holds every save: a compaction that fails here (a full disk) loses
            // nothing, and the next open replays the journal. The close goes on and unlocks.
            do {
                try await Self.compact(memory: memory, files: files, path: path)
            } catch {
                files.compactionFailure.withLock { $0 = Self.typed(error, path: path) }
            }
        }
        try await memory.close()
        files.journal.withLock { try? $0.close() }
        flock(files.lockDescriptor, LOCK_UN)
    }

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) { throw StrataError(.storeClosed, "the store has been closed") }
    }
}
