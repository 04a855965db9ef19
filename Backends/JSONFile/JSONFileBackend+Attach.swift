import Foundation
import StrataStorage

/// The attach of a JSON store: what it holds, read without the schema, without the lock and
/// without writing anything.
extension JSONFileBackend {
    /// The schema description the store at `path` holds, or `nil` when there is no store there
    /// (neither the document nor its journal). The document's format and digest are checked as an
    /// open checks them; the journal's intact entries are read for a newer description (a
    /// migration records one); what follows the last intact entry is left to the open to judge.
    public static func storedDescription(path: String) throws -> SchemaDescription? {
        guard !path.isEmpty else { throw StrataError(.unsupportedStore, "json: needs a file path") }
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw StrataError(.notAStore, "\(path) is a directory, not a JSON store")
        }
        let document = fileManager.contents(atPath: path)
        let journal = fileManager.contents(atPath: journalPath(path)) ?? Data()
        if document == nil, journal.isEmpty { return nil }
        var description = try document.map { try JSONDocument.checkedDocument($0, path: path).description } ?? nil
        if let recorded = lastRecordedDescription(in: journal) { description = recorded }
        return try StoredSchema.attached(description: description, path: path)
    }

    /// The last schema description the journal's intact entries set, up to the first entry that is
    /// not intact.
    private static func lastRecordedDescription(in journal: Data) -> [UInt8]? {
        let bytes = [UInt8](journal)
        var offset = 0
        var found: [UInt8]?
        while offset < bytes.count, let newline = bytes[offset...].firstIndex(of: 0x0A) {
            let line = bytes[offset..<newline]
            offset = newline + 1
            guard JSONIntegrity.isIntact(line: line),
                let entry = try? ExactJSON.parse(Data(line)) as? [String: Any],
                let ops = entry["ops"] as? [[String: Any]]
            else { break }
            for op in ops where op["meta"] as? String == SchemaDescription.metadataKey {
                guard let text = op["value"] as? String, let data = Data(base64Encoded: text) else { continue }
                found = Array(data)
            }
        }
        return found
    }
}
