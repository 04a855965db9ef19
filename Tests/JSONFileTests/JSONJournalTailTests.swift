import Foundation
import Strata
import StrataConformance
import Testing

@testable import StrataJSONFile

private typealias Tag = StrataConformance.Tag

/// A torn append (one unacknowledged line) is told apart from damage that swallowed complete,
/// acknowledged saves: the first is dropped and reported as a recovery; the second is refused at
/// open (files untouched) unless the caller asks to keep what is readable, and `verify` names it.
@Suite("JSON file: the journal's tail")
struct JSONJournalTailTests {
    /// A store with `saves` saves in its journal, its files copied as a crash would leave them;
    /// returns the copy's path and the journal's line offsets.
    private func journalled(_ directory: String, saves: Int) async throws -> (copy: String, lines: [Int]) {
        let path = directory + "/store.json"
        let store = Store(backend: try await JSONFileBackend.open(path: path, schema: try TravelDomain.schema()))
        for index in 0..<saves {
            try await store.repository(Tag.self).insert(
                Tag(id: "t\(index)", label: String(repeating: "label \(index) ", count: 20)))
        }
        let copy = directory + "/copy.json"
        for suffix in ["", ".journal"] {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        try await store.close()
        let journal = [UInt8](try #require(FileManager.default.contents(atPath: copy + ".journal")))
        var lines = [0]
        for (index, byte) in journal.enumerated() where byte == 0x0A && index + 1 < journal.count {
            lines.append(index + 1)
        }
        return (copy, lines)
    }

    private func inDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-json-tail-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(directory)
    }

    @Test func zeroingTheLastPageOfTheJournalIsLossNotATornAppend() async throws {
        try await inDirectory { directory in
            let (copy, lines) = try await journalled(directory, saves: 30)
            let journalPath = copy + ".journal"
            var journal = [UInt8](try #require(FileManager.default.contents(atPath: journalPath)))
            // The last page zeroed, as a lost write of one block leaves it.
            let pageStart = (journal.count - 1) / 4_096 * 4_096
            for index in pageStart..<journal.count { journal[index] = 0 }
            try Data(journal).write(to: URL(fileURLWithPath: journalPath))
            let firstLost = try #require(lines.last { $0 <= pageStart })
            let whollyLost = lines.filter { $0 > firstLost }.count
            #expect(whollyLost >= 1, "the test zeroes more than one entry")

            // The open refuses, naming the loss; the files stay as they are.
            do {
                _ = try await JSONFileBackend.open(path: copy, schema: try TravelDomain.schema())
                Issue.record("a journal whose complete entries were zeroed opened as if nothing was lost")
            } catch let error as StrataError {
                #expect(error.code == .corruptStore)
                #expect(error.message.contains("acknowledged save"), "\(error)")
                #expect(error.message.contains("history token"), "\(error)")
                #expect(error.message.contains("from byte \(firstLost)"), "\(error)")
            }
            #expect(
                FileManager.default.contents(atPath: journalPath).map { [UInt8]($0) } == journal,
                "the failed open changed nothing")

            // verify says the same, as a finding.
            let report = try await JSONFileBackend.verify(path: copy, schema: try TravelDomain.schema())
            #expect(!report.isSound)
            #expect(report.findings.contains { $0.message.contains("not a torn append") }, "\(report)")

            // Asked to keep what is readable, it opens with the saves before the damage.
            let kept = try await JSONFileBackend.open(
                path: copy, schema: try TravelDomain.schema(), options: .init(keepReadableAfterDamage: true))
            let recovery = try #require(kept.journalRecovery)
            #expect(recovery.kind == .damageDropped)
            #expect(recovery.offset == firstLost)
            #expect(
                recovery.acknowledgedSavesLost >= 1 && recovery.acknowledgedSavesLost <= whollyLost + 1, "\(recovery)")
            #expect(!kept.recoveredTornJournalTail)
            let store = Store(backend: kept)
            let count = try await store.repository(Tag.self).count()
            #expect(count == lines.filter { $0 < firstLost }.count, "every save before the damage is kept")
            #expect(recovery.lastKeptToken == HistoryToken(Int64(count)), "\(recovery)")
            try await kept.close()
        }
    }

    @Test func anIncompleteLastLineIsATornAppendDroppedAtOpen() async throws {
        try await inDirectory { directory in
            let (copy, lines) = try await journalled(directory, saves: 5)
            let journalPath = copy + ".journal"
            var journal = [UInt8](try #require(FileManager.default.contents(atPath: journalPath)))
            // The last save's line cut short: written in part, never fsync'd, never acknowledged.
            let last = try #require(lines.last)
            journal.removeSubrange((last + (journal.count - last) / 2)...)
            try Data(journal).write(to: URL(fileURLWithPath: journalPath))
            let report = try await JSONFileBackend.verify(path: copy, schema: try TravelDomain.schema())
            #expect(report.isSound, "\(report)")
            #expect(report.notes.contains { $0.contains("torn append") }, "\(report)")
            let backend = try await JSONFileBackend.open(path: copy, schema: try TravelDomain.schema())
            #expect(backend.recoveredTornJournalTail)
            #expect(backend.journalRecovery?.acknowledgedSavesLost == 0)
            #expect(try await Store(backend: backend).repository(Tag.self).count() == 4)
            try await backend.close()
        }
    }

    @Test func aCompleteLineFailingItsChecksumAtTheEndIsDamageNotATornAppend() async throws {
        try await inDirectory { directory in
            let (copy, lines) = try await journalled(directory, saves: 3)
            let journalPath = copy + ".journal"
            var journal = [UInt8](try #require(FileManager.default.contents(atPath: journalPath)))
            let last = try #require(lines.last)
            journal[last + (journal.count - last) / 2] ^= 0x01  // a flipped bit inside the last, complete line
            try Data(journal).write(to: URL(fileURLWithPath: journalPath))
            await #expect(throws: StrataError.self) {
                _ = try await JSONFileBackend.open(path: copy, schema: try TravelDomain.schema())
            }
            let report = try await JSONFileBackend.verify(path: copy, schema: try TravelDomain.schema())
            #expect(!report.isSound, "\(report)")
        }
    }

    @Test func everyJournalLineDeclaresItsSize() async throws {
        try await inDirectory { directory in
            let (copy, lines) = try await journalled(directory, saves: 3)
            let journal = [UInt8](try #require(FileManager.default.contents(atPath: copy + ".journal")))
            for (index, start) in lines.enumerated() {
                let end = index + 1 < lines.count ? lines[index + 1] : journal.count
                #expect(JSONIntegrity.declaredSize(journal[start...]) == end - start)
            }
        }
    }
}
