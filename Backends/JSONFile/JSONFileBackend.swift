import Foundation
import Strata
import StrataInMemory
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
/// - Recovery replays the journal; a torn last line (a crash mid-append) is ignored and reported
///   (``recoveredTornJournalTail``); anything corrupt before it is a typed error naming the byte offset.
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
    /// Whether opening found and ignored a torn last journal entry.
    public var recoveredTornJournalTail: Bool { shared.torn }

    private let shared: OpenFile
    var memory: InMemoryBackend { shared.memory }
    var files: Files { shared.files }
    private let isClosed = Atomic<Bool>(false)

    /// One open store in this process: its live state and its files, shared by every handle.
    final class OpenFile: Sendable {
        let memory: InMemoryBackend
        let files: Files
        let torn: Bool

        init(memory: InMemoryBackend, files: Files, torn: Bool) {
            self.memory = memory
            self.files = files
            self.torn = torn
        }
    }

    /// The open journal and lock, used only inside the in-memory backend's write closure (which
    /// serialises writers) or after every write has finished (close).
    final class Files: Sendable {
        let journal: Mutex<FileHandle>
        let lockDescriptor: Int32
        let journalBytes = Atomic<Int>(0)
        let documentBytes = Atomic<Int>(0)

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
    public static func register(in registry: BackendRegistry = .shared) {
        registry.register(scheme: "json") { location, schema in
            try await JSONFileBackend.open(path: location.path, schema: schema)
        }
    }

    private init(schema: Schema, path: String, shared: OpenFile) {
        self.schema = schema
        self.path = path
        self.shared = shared
    }

    static func journalPath(_ path: String) -> String { path + ".journal" }

    /// Opens or creates the store at `path`, taking the write lock and replaying the journal. A
    /// path this process already has open gives another handle onto the same store.
    public static func open(path: String, schema: Schema) async throws -> JSONFileBackend {
        guard !path.isEmpty else { throw StrataError(.unsupportedStore, "json: needs a file path") }
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StrataError(.notAStore, "\(path) is a directory, not a JSON store")
        }
        let shared = try await OpenFiles.acquire(path: path, schema: schema) {
            try await openFile(path: path, schema: schema)
        }
        return JSONFileBackend(schema: schema, path: path, shared: shared)
    }

    private static func openFile(path: String, schema: Schema) async throws -> OpenFile {
        // One writer process: an exclusive advisory lock on a side file, never on the document.
        let lockDescriptor = Foundation.open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard lockDescriptor >= 0 else {
            throw StrataError(.storageFailure, "\(path).lock cannot be created (errno \(errno))")
        }
        guard flock(lockDescriptor, LOCK_EX | LOCK_NB) == 0 else {
            Foundation.close(lockDescriptor)
            throw StrataError(.storageFailure, "\(path) is open for writing by another process (a JSON store has one writer process; this process may open it again)")
        }
        do {
            return try await openLocked(path: path, schema: schema, lockDescriptor: lockDescriptor)
        } catch {
            flock(lockDescriptor, LOCK_UN)
            Foundation.close(lockDescriptor)
            throw error
        }
    }

    private static func openLocked(path: String, schema: Schema, lockDescriptor: Int32) async throws -> OpenFile {
        let fileManager = FileManager.default
        try? fileManager.removeItem(atPath: path + ".tmp")   // a compaction that never reached its rename
        var operations: [JSONOperation] = []
        var documentSize = 0
        if let data = fileManager.contents(atPath: path) {
            documentSize = data.count
            operations = try JSONDocument.operations(data, path: path, schema: schema)
        }
        let journalData = fileManager.contents(atPath: journalPath(path)) ?? Data()
        let (replayed, torn, validLength) = try replay(journalData, path: journalPath(path), schema: schema)
        operations += replayed

        let memory = try await rebuild(operations, schema: schema)
        // The shape the store holds, kept with it (written out at the next compaction for a
        // store from before descriptions, and at once for a new one).
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
            if torn { try journal.truncate(atOffset: UInt64(validLength)) }
            try journal.seekToEnd()
        } catch {
            throw StrataError(.storageFailure, underlying: error, "\(journalPath(path)) cannot be written")
        }
        let files = Files(journal: journal, lockDescriptor: lockDescriptor)
        files.journalBytes.store(validLength, ordering: .relaxed)
        files.documentBytes.store(documentSize, ordering: .relaxed)
        return OpenFile(memory: memory, files: files, torn: torn)
    }

    /// The live state the document's and journal's operations describe.
    static func rebuild(_ operations: [JSONOperation], schema: Schema) async throws -> InMemoryBackend {
        let memory = InMemoryBackend(schema: schema)
        try await memory.write { tx in for operation in operations { try operation.apply(to: tx) } }
        return memory
    }

    /// Parses the journal: complete lines are saves; an incomplete or unreadable *last* line is a
    /// torn append (ignored); an unreadable line before it is corruption, reported with its offset.
    static func replay(_ data: Data, path: String, schema: Schema) throws -> (operations: [JSONOperation], torn: Bool, validLength: Int) {
        var operations: [JSONOperation] = []
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count {
            guard let newline = bytes[offset...].firstIndex(of: 0x0A) else { return (operations, true, offset) }
            let line = Data(bytes[offset..<newline])
            let isLast = newline == bytes.count - 1
            do {
                let integrity = JSONIntegrity.check(line: bytes[offset..<newline])
                guard integrity != .damaged else {
                    throw StrataError(.corruptStore, "a journal entry does not match its checksum")
                }
                guard let entry = try ExactJSON.parse(line) as? [String: Any], let ops = entry["ops"] as? [[String: Any]],
                    // Unchecked entries are exactly `{"ops": […]}`: a damaged `crc` key cannot pass as one.
                    integrity == .valid || entry.count == 1
                else {
                    throw StrataError(.corruptStore, "not a journal entry")
                }
                operations += try ops.map { try JSONOperation.parse($0, schema) }
            } catch {
                if isLast { return (operations, true, offset) }
                throw StrataError(.corruptStore, underlying: error, "\(path) is corrupt at byte \(offset)")
            }
            offset = newline + 1
        }
        return (operations, false, offset)
    }

    /// Writes to a temp file, fsyncs it, renames it over `path`, fsyncs the directory.
    static func writeAtomically(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        do {
            guard FileManager.default.createFile(atPath: temporary, contents: nil), let handle = FileHandle(forWritingAtPath: temporary) else {
                throw StrataError(.storageFailure, "\(temporary) cannot be created")
            }
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, path) == 0 else { throw StrataError(.storageFailure, "rename to \(path) failed (errno \(errno))") }
            let directory = (path as NSString).deletingLastPathComponent
            let descriptor = Foundation.open(directory.isEmpty ? "." : directory, O_RDONLY)
            if descriptor >= 0 {
                fsync(descriptor)
                Foundation.close(descriptor)
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.storageFailure, underlying: error, "\(path) cannot be written")
        }
    }

    // MARK: StorageBackend

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        try checkOpen()
        return try await memory.read(body)
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T {
        try checkOpen()
        let files = files
        let path = path
        let result = try await memory.write { tx in
            let recorder = RecordingTransaction(tx)
            let result = try body(recorder)
            guard !recorder.operations.isEmpty else { return result }
            // Durable before the save returns: a failure here throws, which rolls the memory back.
            var text = JSONText()
            text.raw("[")
            for (index, operation) in recorder.operations.enumerated() {
                if index > 0 { text.raw(", ") }
                operation.write(to: &text)
            }
            text.raw("]")
            let line = JSONIntegrity.journalLine(ops: text.bytes)
            do {
                try files.journal.withLock { handle in
                    try handle.write(contentsOf: line)
                    try handle.synchronize()
                }
            } catch {
                throw StrataError(.storageFailure, underlying: error, "\(Self.journalPath(path)) cannot be written")
            }
            files.journalBytes.add(line.count, ordering: .relaxed)
            return result
        }
        if files.journalBytes.load(ordering: .relaxed) > max(1 << 20, files.documentBytes.load(ordering: .relaxed)) {
            try await Self.compact(memory: memory, files: files, path: path)
        }
        return result
    }

    /// Rewrites the document from the current state and empties the journal (see the type's notes).
    public func compact() async throws {
        try checkOpen()
        try await Self.compact(memory: memory, files: files, path: path)
    }

    private static func compact(memory: InMemoryBackend, files: Files, path: String) async throws {
        try await memory.write { tx in
            // Inside the write closure: no save can land between the snapshot and the truncation.
            let document = try JSONDocument.encode(from: tx)
            try Self.writeAtomically(document, to: path)
            do {
                try files.journal.withLock { handle in
                    try handle.truncate(atOffset: 0)
                    try handle.synchronize()
                }
            } catch {
                throw StrataError(.storageFailure, underlying: error, "\(Self.journalPath(path)) cannot be truncated")
            }
            files.journalBytes.store(0, ordering: .relaxed)
            files.documentBytes.store(document.count, ordering: .relaxed)
        }
    }

    /// Closes this handle. The last handle of the process compacts and releases the lock. Later
    /// calls on this handle fail with ``StrataError/Code/storeClosed``.
    public func close() async throws {
        guard isClosed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        guard OpenFiles.release(path: path) else { return }
        let (memory, files, path) = (memory, files, path)
        if files.journalBytes.load(ordering: .relaxed) > 0 { try await Self.compact(memory: memory, files: files, path: path) }
        try await memory.close()
        files.journal.withLock { try? $0.close() }
        flock(files.lockDescriptor, LOCK_UN)
    }

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) { throw StrataError(.storeClosed, "the store has been closed") }
    }
}
