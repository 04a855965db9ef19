import Foundation
import StrataInMemory
import StrataStorage
import Synchronization

/// Saves and compactions: the change in memory and its journal line, durable before a save
/// returns, on the store's own executor (off the cooperative threads).
extension JSONFileBackend {
    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws
        -> T
    {
        try checkOpen()
        let files = files
        let path = path
        try Self.checkJournalSound(files, path: path)
        return try await withTaskExecutorPreference(files.work) {
            try await Self.write(body, memory: memory, files: files, path: path)
        }
    }

    /// A save: the change in memory and its journal line, durable before it returns.
    private static func write<T: Sendable>(
        _ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T, memory: InMemoryBackend, files: Files,
        path: String
    ) async throws -> T {
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
            try Self.append(line, to: files, path: path)
            return result
        }
        // The save is committed (its journal line is durable): what follows is not its failure.
        await Self.compactIfDue(memory: memory, files: files, path: path)
        return result
    }

    /// Rewrites the document from the current state and empties the journal (see the type's notes).
    public func compact() async throws {
        try checkOpen()
        let (memory, files, path) = (memory, files, path)
        try await withTaskExecutorPreference(files.work) {
            try await Self.compact(memory: memory, files: files, path: path)
        }
        files.compactionRetryBytes.store(0, ordering: .relaxed)
        files.compactionFailure.withLock { $0 = nil }
    }

    static func compact(memory: InMemoryBackend, files: Files, path: String) async throws {
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
}
