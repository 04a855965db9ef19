import Foundation
import Strata
import StrataConformance
import Testing

@testable import StrataLMDB

/// A closed store of 8 ledger batches in `path`; returns its data file's bytes.
private func ledgerStore(_ path: String) async throws -> [UInt8] {
    let store = Store(backend: try await LMDBBackend.open(path: path, schema: try LedgerEntry.schema()))
    for batch in 0..<8 {
        try await store.repository(LedgerEntry.self).insert(contentsOf: LedgerEntry.batch(batch, size: 25))
    }
    try await store.close()
    return [UInt8](try #require(FileManager.default.contents(atPath: path + "/data.mdb")))
}

private func offsets(of text: String, in bytes: [UInt8]) -> [Int] {
    let needle = Array(text.utf8)
    return (0...(bytes.count - needle.count)).filter { bytes[$0..<$0 + needle.count].elementsEqual(needle) }
}

@Suite("LMDB: verify")
struct LMDBVerifyTests {
    @Test func aSoundStoreIsSoundAndEveryRecordIsChecked() async throws {
        try await withTemporaryDirectory { path in
            let bytes = try await ledgerStore(path)
            let report = try await LMDBBackend.verify(path: path, schema: try LedgerEntry.schema())
            #expect(report.isSound, "\(report)")
            #expect(report.isSafeToOpen)
            #expect(report.recordsChecked["LedgerEntry"] == 200)
            #expect(report.notes.contains { $0.contains("child process") }, "\(report)")
            #expect(
                FileManager.default.contents(atPath: path + "/data.mdb").map { [UInt8]($0) } == bytes,
                "verify changes nothing")
        }
    }

    /// Zeroing pages one at a time until liblmdb aborts on one: the abort happens in verify's
    /// child, and the caller gets a report that says the store is not safe to open.
    @Test func structuralDamageThatAbortsLiblmdbIsFoundInAChildProcess() async throws {
        try await withTemporaryDirectory { path in
            let bytes = try await ledgerStore(path)
            var found: VerifyReport?
            for page in 2..<(bytes.count / 4_096) where found == nil {
                var damaged = bytes
                for index in page * 4_096..<(page + 1) * 4_096 { damaged[index] = 0 }
                try Data(damaged).write(to: URL(fileURLWithPath: path + "/data.mdb"))
                let report = try await LMDBBackend.verify(path: path, schema: try LedgerEntry.schema())
                if !report.isSafeToOpen { found = report }
            }
            let report = try #require(found, "some zeroed page makes liblmdb abort")
            #expect(!report.isSound)
            #expect(report.findings.first?.message.contains("structurally damaged") == true, "\(report)")
            // The same walk guards an open that asks for it: a typed error instead of a crash.
            let before = FileManager.default.contents(atPath: path + "/data.mdb")
            await #expect(throws: StrataError.self) {
                _ = try await LMDBBackend.open(
                    path: path, schema: try LedgerEntry.schema(), options: .init(verifyStructureAtOpen: true))
            }
            #expect(FileManager.default.contents(atPath: path + "/data.mdb") == before)
        }
    }

    /// The label of e3-4 is stored in its record and as a key of the label index (and in stale
    /// copies on free pages, which nothing reads). Damage to each copy in turn must be a finding
    /// naming the record, or the index by its property, or nothing at all where nothing reads it.
    @Test func aDamagedRecordOrIndexEntryIsNamed() async throws {
        try await withTemporaryDirectory { path in
            let bytes = try await ledgerStore(path)
            let places = offsets(of: "batch 3 entry 4", in: bytes)
            #expect(places.count >= 2, "record and index entry")
            var named: [String] = []
            for at in places {
                var damaged = bytes
                damaged[at + 2] ^= 0x01
                try Data(damaged).write(to: URL(fileURLWithPath: path + "/data.mdb"))
                let report = try await LMDBBackend.verify(path: path, schema: try LedgerEntry.schema())
                for finding in report.findings {
                    #expect(finding.entity == "LedgerEntry", "\(finding)")
                    named.append(
                        finding.property.map { "index \($0)" } ?? finding.recordID.map { "record \($0)" }
                            ?? "\(finding)")
                }
            }
            #expect(named.contains("record e3-4"), "\(named)")
            #expect(named.contains("index label"), "\(named)")
            #expect(named.allSatisfy { $0 == "record e3-4" || $0 == "index label" }, "\(named)")
        }
    }
}
