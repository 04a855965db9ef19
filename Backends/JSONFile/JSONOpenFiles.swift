import Foundation
import StrataStorage
import Synchronization

/// The JSON stores this process has open, by canonical path, with how many handles each has.
///
/// The write lock (`flock`) keeps other processes out; within one process a second open of the
/// same path must not be refused (SQLite and LMDB allow it), so it shares the store already open.
enum OpenFiles {
    private struct Entry {
        var token: UUID
        var opening: Task<JSONFileBackend.OpenFile, any Error>
        var description: SchemaDescription
        var handles: Int
    }

    private static let table = Mutex<[String: Entry]>([:])

    /// The path with its directory's symbolic links resolved, so two spellings of one file meet.
    static func canonical(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let directory = url.deletingLastPathComponent().resolvingSymlinksInPath()
        return directory.appendingPathComponent(url.lastPathComponent).path
    }

    /// The open store at `path`, opened with `open` when this process does not have it yet. A
    /// store open here with another schema is `StrataError.Code.incompatibleStore`.
    static func acquire(
        path: String, schema: Schema, _ open: @escaping @Sendable () async throws -> JSONFileBackend.OpenFile
    ) async throws -> JSONFileBackend.OpenFile {
        let key = canonical(path)
        let description = SchemaDescription(schema)
        let (token, task): (UUID, Task<JSONFileBackend.OpenFile, any Error>) = try table.withLock { table in
            if var entry = table[key] {
                guard entry.description.isOpenable(as: description) else {
                    let changes = description.differences(from: entry.description)
                    throw StrataError(
                        .incompatibleStore,
                        "\(path) is already open in this process with another schema: "
                            + "\(changes.map(\.description).joined(separator: "; "))"
                    )
                }
                entry.handles += 1
                table[key] = entry
                return (entry.token, entry.opening)
            }
            let entry = Entry(token: UUID(), opening: Task { try await open() }, description: description, handles: 1)
            table[key] = entry
            return (entry.token, entry.opening)
        }
        do {
            return try await task.value
        } catch {
            table.withLock { table in
                guard var entry = table[key], entry.token == token else { return }
                entry.handles -= 1
                table[key] = entry.handles == 0 ? nil : entry
            }
            throw error
        }
    }

    /// Whether this process has the store at `path` open (through any handle).
    static func isOpen(_ path: String) -> Bool {
        table.withLock { $0[canonical(path)] != nil }
    }

    /// Gives back one handle; `true` when it was the last, and the caller must close the files.
    static func release(path: String) -> Bool {
        let key = canonical(path)
        return table.withLock { table in
            guard var entry = table[key] else { return true }
            entry.handles -= 1
            table[key] = entry.handles == 0 ? nil : entry
            return entry.handles == 0
        }
    }
}
