import Foundation
import Strata
import StrataConformance
import Testing

@testable import StrataJSONFile

private typealias Tag = StrataConformance.Tag

private func withTemporaryPath(_ body: (String) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-json-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(directory.appendingPathComponent("store.json").path)
}

private func open(_ path: String) async throws -> JSONFileBackend {
    try await JSONFileBackend.open(path: path, schema: try TravelDomain.schema())
}

/// The files of an open store copied elsewhere: what a crash would leave behind.
private func crashCopy(of path: String, to copy: String) throws {
    for suffix in ["", ".journal"] {
        try? FileManager.default.removeItem(atPath: copy + suffix)
        try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
    }
}

/// A store with two saves in its journal, and a copy of its files as a crash would leave them.
private func twoSavesThenCrashCopy(_ path: String) async throws -> (Store, String) {
    let store = Store(backend: try await open(path))
    try await store.repository(Tag.self).insert(Tag(id: "a", label: "A"))
    try await store.repository(Tag.self).insert(Tag(id: "b", label: "B"))
    let copy = path + ".crash"
    try crashCopy(of: path, to: copy)
    return (store, copy)
}

private func expectOpenFails(
    _ code: StrataError.Code, at path: String, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let before = FileManager.default.contents(atPath: path)
    do {
        _ = try await open(path)
        Issue.record("expected \(code), the store opened", sourceLocation: sourceLocation)
    } catch let error as StrataError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
    #expect(
        FileManager.default.contents(atPath: path) == before, "the document must not change",
        sourceLocation: sourceLocation)
}

@Suite("JSON file")
struct JSONFileTests {
    @Test func aSaveAppendsOneJournalLineAndNeverRewritesTheDocument() async throws {
        try await withTemporaryPath { path in
            let backend = try await open(path)
            let document = FileManager.default.contents(atPath: path)
            let store = Store(backend: backend)
            try await store.repository(Tag.self).insert(Tag(id: "a", label: "A"))
            try await store.repository(Tag.self).insert(Tag(id: "b", label: "B"))
            #expect(FileManager.default.contents(atPath: path) == document)
            let journal = try #require(FileManager.default.contents(atPath: path + ".journal"))
            #expect(journal.filter { $0 == 0x0A }.count == 2)
            try await store.close()
        }
    }

    @Test func aTornLastEntryIsIgnoredAndReported() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await twoSavesThenCrashCopy(path)
            let handle = try #require(FileHandle(forWritingAtPath: copy + ".journal"))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(#"{"ops":[{"put":"Tag","id":"c","vers"#.utf8))
            try handle.close()
            let recovered = try await open(copy)
            #expect(recovered.recoveredTornJournalTail)
            #expect(try await Store(backend: recovered).repository(Tag.self).fetch().map(\.id) == ["a", "b"])
            try await Store(backend: recovered).repository(Tag.self).insert(Tag(id: "c", label: "C"))
            try await recovered.close()
            let reopened = try await open(copy)
            #expect(!reopened.recoveredTornJournalTail)
            #expect(try await Store(backend: reopened).repository(Tag.self).count() == 3)
            try await store.close()
        }
    }

    @Test func corruptionBeforeTheLastEntryIsATypedErrorWithItsOffset() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await twoSavesThenCrashCopy(path)
            var journal = try #require(FileManager.default.contents(atPath: copy + ".journal"))
            journal[2] = UInt8(ascii: "#")
            try journal.write(to: URL(fileURLWithPath: copy + ".journal"))
            do {
                _ = try await open(copy)
                Issue.record("expected corruptStore")
            } catch let error as StrataError {
                #expect(error.code == .corruptStore)
                #expect(error.message.contains("at byte 0"), "\(error)")
            }
            #expect(FileManager.default.contents(atPath: copy + ".journal") == journal, "the journal is left as it was")
            try await store.close()
        }
    }

    /// A flipped byte in a checksum's own key must not make its line or document pass as an
    /// older, unchecked one.
    @Test func damageToTheChecksumKeysDoesNotTurnTheChecksOff() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await twoSavesThenCrashCopy(path)
            var journal = try #require(FileManager.default.contents(atPath: copy + ".journal"))
            journal[2] = UInt8(ascii: "x")  // {"crc" → {"xrc"
            try journal.write(to: URL(fileURLWithPath: copy + ".journal"))
            try await expectOpenFails(.corruptStore, at: copy)
            try await store.close()
            var document = try #require(FileManager.default.contents(atPath: path))
            let at = try #require(document.firstRange(of: Data("\"digest\"".utf8))).lowerBound
            document[at + 1] = UInt8(ascii: "x")  // "digest" → "xigest"
            try document.write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.corruptStore, at: path)
        }
    }

    @Test func aChangedValueThatStillParsesIsCaughtByTheEntrysChecksum() async throws {
        try await withTemporaryPath { path in
            let (store, copy) = try await twoSavesThenCrashCopy(path)
            let journal = try #require(FileManager.default.contents(atPath: copy + ".journal"))
            let text = String(decoding: journal, as: UTF8.self)
            let firstLine = try #require(text.split(separator: "\n").first)
            #expect(firstLine.hasPrefix(#"{"crc": ""#), "each entry carries its checksum: \(firstLine)")
            let damaged = text.replacingOccurrences(of: #""A""#, with: #""Z""#)
            #expect(damaged != text)
            try Data(damaged.utf8).write(to: URL(fileURLWithPath: copy + ".journal"))
            await #expect(throws: StrataError.self) { _ = try await open(copy) }
            try await store.close()
        }
    }

    @Test func aCrashAtEachCompactionStepKeepsEverySave() async throws {
        try await withTemporaryPath { path in
            let backend = try await open(path)
            let store = Store(backend: backend)
            for index in 0..<5 { try await store.repository(Tag.self).insert(Tag(id: "t\(index)", label: "T\(index)")) }
            let expectedHistory = try await store.history()
            let beforeCompaction = path + ".before"
            try crashCopy(of: path, to: beforeCompaction)
            // 1. The temp file was written, the rename never happened.
            try Data("half a document".utf8).write(to: URL(fileURLWithPath: beforeCompaction + ".tmp"))
            // 2. The rename happened, the journal was not yet truncated.
            try await backend.compact()
            let renamed = path + ".renamed"
            try crashCopy(of: path, to: renamed)
            try FileManager.default.removeItem(atPath: renamed + ".journal")
            try FileManager.default.copyItem(atPath: beforeCompaction + ".journal", toPath: renamed + ".journal")
            // 3. Everything done.
            let done = path + ".done"
            try crashCopy(of: path, to: done)
            for copy in [beforeCompaction, renamed, done] {
                let reopened = Store(backend: try await open(copy))
                #expect(try await reopened.repository(Tag.self).count() == 5, "\(copy)")
                #expect(try await reopened.history() == expectedHistory, "\(copy)")
                try await reopened.repository(Tag.self).insert(Tag(id: "after", label: "After"))
                try await reopened.close()
            }
            #expect(
                !FileManager.default.fileExists(atPath: beforeCompaction + ".tmp"), "the stale temp file is removed")
            try await store.close()
        }
    }

    /// As on SQLite and LMDB, a second open in the same process works and shares the store; only
    /// another process is refused (JSONFileLockTests).
    @Test func aSecondOpenInTheSameProcessSharesTheStore() async throws {
        try await withTemporaryPath { path in
            let first = Store(backend: try await open(path))
            let second = Store(backend: try await open(path))
            let third = Store(
                backend: try await open(
                    URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("./store.json").path))
            try await first.repository(Tag.self).insert(Tag(id: "one", label: "One"))
            try await second.repository(Tag.self).insert(Tag(id: "two", label: "Two"))
            #expect(try await first.repository(Tag.self).count() == 2, "each handle sees the other's writes")
            #expect(
                try await third.repository(Tag.self).fetch("one")?.label == "One",
                "another spelling of the path meets the same store")
            try await first.close()
            await #expect(throws: StrataError.self) { try await first.repository(Tag.self).count() }
            try await second.repository(Tag.self).insert(Tag(id: "three", label: "Three"))
            try await second.close()
            try await third.close()
            let reopened = Store(backend: try await open(path))
            #expect(try await reopened.repository(Tag.self).count() == 3, "the last close made every write durable")
            try await reopened.close()
            // While one handle is open, a second one with another schema is refused.
            let held = try await open(path)
            let other = try Schema(entities: [EntityDescription(name: "Other", idKind: .string)])
            do {
                _ = try await JSONFileBackend.open(path: path, schema: other)
                Issue.record("a second handle opened with another schema")
            } catch let error as StrataError {
                #expect(error.code == .incompatibleStore)
            }
            try await held.close()
        }
    }

    @Test func aHandEditedDocumentStillOpens() async throws {
        try await withTemporaryPath { path in
            let store = Store(backend: try await open(path))
            try await store.repository(Tag.self).insert(Tag(id: "beach", label: "Beach"))
            try await store.close()
            let bytes = try #require(FileManager.default.contents(atPath: path))
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.contains("\"Beach\""), "the document is readable")
            let edited = text.replacingOccurrences(of: "\"Beach\"", with: "\"Sandy beach\"")
            // An edit the digest does not cover is refused as damage, naming the way to accept it…
            try Data(edited.utf8).write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.corruptStore, at: path)
            // …which is to delete the digest line.
            let accepted = edited.replacingOccurrences(
                of: #",\n  "digest": "[0-9a-f]{8}""#, with: "", options: .regularExpression)
            #expect(accepted != edited, "the document has a digest line")
            try Data(accepted.utf8).write(to: URL(fileURLWithPath: path))
            let reopened = Store(backend: try await open(path))
            #expect(try await reopened.repository(Tag.self).fetch("beach")?.label == "Sandy beach")
            try await reopened.close()
        }
    }

    @Test func theDocumentIsByteIdenticalAfterANoChangeReopenAndCompaction() async throws {
        try await withTemporaryPath { path in
            let store = Store(backend: try await open(path))
            _ = try await TravelData.seed(store)
            try await store.close()
            let first = try #require(FileManager.default.contents(atPath: path))
            let backend = try await open(path)
            try await backend.compact()
            try await backend.close()
            #expect(FileManager.default.contents(atPath: path) == first)
        }
    }

    @Test func badFiles() async throws {
        try await withTemporaryPath { path in
            try Data("this is not json".utf8).write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.notAStore, at: path)
            try Data(#"{"invoices": [1, 2, 3]}"#.utf8).write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.notAStore, at: path)
            let schema = try TravelDomain.schema().fingerprint
            let newer = try JSONSerialization.data(withJSONObject: [
                "format": 99, "schema": schema, "entities": [:] as [String: Any],
            ])
            try newer.write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.incompatibleStore, at: path)
            // Format 1 is the only one: an older number is refused as well, never read.
            let older = try JSONSerialization.data(withJSONObject: [
                "format": 0, "schema": schema, "entities": [:] as [String: Any],
            ])
            try older.write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.incompatibleStore, at: path)
            let other = try JSONSerialization.data(withJSONObject: [
                "format": 1, "schema": "another", "entities": [:] as [String: Any],
            ])
            try other.write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.incompatibleStore, at: path)
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try await expectOpenFails(.notAStore, at: path)
        }
        do {
            _ = try await open("/proc/strata-\(UUID().uuidString).json")
            Issue.record("expected the open to fail")
        } catch let error as StrataError {
            #expect(error.code == .storageFailure)
        }
    }
}
