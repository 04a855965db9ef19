import Foundation
import StrataInMemory
import StrataStorage

/// The journal's side of opening a JSON store: replaying its entries, and what the open does with
/// whatever follows the last readable one (``JSONJournalTail``).
extension JSONFileBackend {
    /// Parses the journal: complete lines are saves, up to the first unreadable line that no
    /// readable line follows — from there on is the tail (``JSONJournalTail``: a torn append, or
    /// damage). An unreadable line with readable ones after it is corruption, reported with its offset.
    static func replay(
        _ data: Data, path: String, schema: Schema
    ) throws -> (operations: [JSONOperation], tail: JSONJournalTail) {
        var operations: [JSONOperation] = []
        var offset = 0
        let bytes = [UInt8](data)
        while offset < bytes.count, let newline = bytes[offset...].firstIndex(of: 0x0A) {
            do {
                operations += try entry(bytes[offset..<newline], schema: schema)
            } catch {
                if !hasReadableLine(bytes, from: newline + 1, schema: schema) { break }
                throw StrataError(.corruptStore, underlying: error, "\(path) is corrupt at byte \(offset)")
            }
            offset = newline + 1
        }
        return (operations, JSONJournalTail(bytes, from: offset))
    }

    /// One journal line's operations; throws when the line is not an intact entry.
    private static func entry(_ line: ArraySlice<UInt8>, schema: Schema) throws -> [JSONOperation] {
        guard JSONIntegrity.isIntact(line: line) else {
            throw StrataError(.corruptStore, "a journal entry does not match its size or its checksum")
        }
        guard let entry = try ExactJSON.parse(Data(line)) as? [String: Any], let ops = entry["ops"] as? [[String: Any]]
        else {
            throw StrataError(.corruptStore, "not a journal entry")
        }
        return try ops.map { try JSONOperation.parse($0, schema) }
    }

    /// Whether any complete line from `offset` on is an intact entry.
    private static func hasReadableLine(_ bytes: [UInt8], from offset: Int, schema: Schema) -> Bool {
        var start = offset
        while start < bytes.count, let newline = bytes[start...].firstIndex(of: 0x0A) {
            if (try? entry(bytes[start..<newline], schema: schema)) != nil { return true }
            start = newline + 1
        }
        return false
    }

    /// What the open does with the journal's tail: drops a torn append; refuses damage (nothing
    /// written yet) unless `options` keep what is readable.
    static func recovery(
        from tail: JSONJournalTail, of memory: InMemoryBackend, path: String, options: Options
    ) async throws -> JSONJournalRecovery? {
        guard tail.kind != .none else { return nil }
        let lastKept = try await memory.read { HistoryToken.last(in: $0) }
        if tail.isDamage, !options.keepReadableAfterDamage {
            throw StrataError(
                .corruptStore,
                "\(tail.describe(journal: journalPath(path), lastKept: lastKept)). The files are untouched: restore "
                    + "a backup, or open with JSONFileBackend.Options(keepReadableAfterDamage: true) to keep the "
                    + "saves up to that token and drop the rest")
        }
        return JSONJournalRecovery(
            kind: tail.isDamage ? .damageDropped : .tornAppend, offset: tail.offset, droppedBytes: tail.length,
            acknowledgedSavesLost: tail.acknowledgedLost, lastKeptToken: lastKept)
    }
}
