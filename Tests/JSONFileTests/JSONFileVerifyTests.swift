import Foundation
import Strata
import StrataConformance
import StrataJSONFile
import Testing

/// A store with 3 ledger batches in the document and 3 in the journal, copied as a stopped
/// process leaves it.
private func storeWithAJournal(_ directory: String) async throws -> String {
    let path = directory + "/store.json"
    let schema = try LedgerEntry.schema()
    let first = Store(backend: try await JSONFileBackend.open(path: path, schema: schema))
    for batch in 0..<3 {
        try await first.repository(LedgerEntry.self).insert(contentsOf: LedgerEntry.batch(batch, size: 10))
    }
    try await first.close()
    let store = Store(backend: try await JSONFileBackend.open(path: path, schema: schema))
    for batch in 3..<6 {
        try await store.repository(LedgerEntry.self).insert(contentsOf: LedgerEntry.batch(batch, size: 10))
    }
    let copy = directory + "/copy.json"
    for suffix in ["", ".journal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
    try await store.close()
    return copy
}

private func inDirectory(_ body: (String) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "strata-json-verify-\(UUID().uuidString)"
    ).path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try await body(directory)
}

@Suite("JSON file: verify")
struct JSONFileVerifyTests {
    @Test func aSoundStoreIsSound() async throws {
        try await inDirectory { directory in
            let copy = try await storeWithAJournal(directory)
            let report = try await JSONFileBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(report.isSound, "\(report)")
            #expect(report.recordsChecked["LedgerEntry"] == 60)
        }
    }

    @Test func aDamagedJournalEntryAndADamagedDocumentAreFindings() async throws {
        try await inDirectory { directory in
            let copy = try await storeWithAJournal(directory)
            let journal = try #require(FileManager.default.contents(atPath: copy + ".journal"))
            let text = String(decoding: journal, as: UTF8.self)
            try Data(text.replacingOccurrences(of: "batch 3 entry 1\"", with: "batch 3 entry 7\"").utf8).write(
                to: URL(fileURLWithPath: copy + ".journal"))
            var report = try await JSONFileBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(!report.isSound, "a changed value in an entry that still parses: \(report)")
            try journal.write(to: URL(fileURLWithPath: copy + ".journal"))
            var document = try #require(FileManager.default.contents(atPath: copy))
            let at = try #require(document.firstRange(of: Data("batch 1 entry 2".utf8))).lowerBound
            document[at] = UInt8(ascii: "c")
            try document.write(to: URL(fileURLWithPath: copy))
            report = try await JSONFileBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(report.findings.contains { $0.message.contains("digest") }, "\(report)")
        }
    }

    @Test func aTornAppendIsANoteNotDamage() async throws {
        try await inDirectory { directory in
            let copy = try await storeWithAJournal(directory)
            let handle = try #require(FileHandle(forWritingAtPath: copy + ".journal"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(#"{"crc": "0000"#.utf8))
            try handle.close()
            let report = try await JSONFileBackend.verify(path: copy, schema: try LedgerEntry.schema())
            #expect(report.isSound, "\(report)")
            #expect(report.notes.contains { $0.contains("torn append") }, "\(report)")
        }
    }
}
