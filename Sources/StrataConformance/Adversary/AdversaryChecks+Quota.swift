import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Uploads are bounded per identity: what its unfinished uploads declare, how many it has under
/// way, and the bytes of the files it uploaded that are still stored. Over any of them the piece
/// that would start an upload is 413 naming the limit, nothing is stored, another identity is not
/// touched, and what the server collects stops counting.
extension AdversaryChecks {
    /// A file of `count` bytes (seeded), and its reference.
    static func quotaFile(_ count: Int, seed: UInt32) throws -> (Data, FileReference) {
        let bytes = PostcardDomain.bytes(count, seed: seed)
        return (bytes, try expectNotNil(FileReference(digest: SHA256.digest(bytes), size: Int64(count))))
    }

    /// `body` is refused as over a quota (413), naming `words`.
    static func expectOverQuota(_ words: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as SyncTransportError {
            try expectEqual(error.status, 413, "\(error)")
            try expectEqual(error.kind, .payloadTooLarge, "\(error)")
            try expect(error.reason.contains(words), "the answer names \(words): \(error.reason)")
            return
        }
        throw ConformanceFailure(
            "over the quota (\(words)): accepted", fileID: #fileID, filePath: #filePath, line: #line)
    }

    static let quotaLimits = SyncLimits(
        rate: nil, files: SyncFileQuota(unfinishedBytes: 3_000, unfinishedUploads: 2, storedBytes: 5_000),
        fileCollection: nil)

    static let quotas: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "anIdentitysUploadsAreBoundedByItsQuotaAndWhatIsCollectedStopsCounting") { c in
            let world = try await TransportWorld.make(
                c, access: FileTransferChecks.access, limits: quotaLimits, schema: PostcardDomain.schema())
            let alice = world.host.remote(tokens: FixedToken("token-a"))
            let huge = try expectNotNil(FileReference(digest: String(repeating: "cd", count: 32), size: 1 << 40))
            try await expectOverQuota("5000") { _ = try await alice.upload(Data(), of: huge, at: 0) }
            let (_, large) = try quotaFile(4_000, seed: 20)
            try await expectOverQuota("3000") { _ = try await alice.upload(Data(), of: large, at: 0) }
            // Two uploads under way fill her slots; a third is refused, Bob is not touched.
            let (a, fileA) = try quotaFile(1_000, seed: 21)
            let (b, fileB) = try quotaFile(1_000, seed: 22)
            let (cBytes, fileC) = try quotaFile(2_500, seed: 23)
            for (bytes, file) in [(a, fileA), (b, fileB)] {
                let state = try await alice.upload(bytes.prefix(500), of: file, at: 0)
                try expectEqual(state.received, 500, "half of \(file)")
            }
            try await expectOverQuota("(2)") { _ = try await alice.upload(Data(), of: fileC, at: 0) }
            let bob = world.host.remote(tokens: FixedToken("token-b"))
            try expect(try await bob.upload(cBytes, of: fileC, at: 0).complete, "Bob's quota is his own")
            // Finished, they count as stored: 2,000, then 4,500 with C; a fourth is over 5,000.
            for (bytes, file) in [(a, fileA), (b, fileB)] {
                try expect(try await alice.upload(bytes.dropFirst(500), of: file, at: 500).complete, "\(file)")
            }
            try expect(try await alice.upload(cBytes, of: fileC, at: 0).complete, "C fits beside A and B")
            try expect(try await alice.upload(Data(), of: fileA, at: 0).complete, "a file she holds is no new upload")
            let (d, fileD) = try quotaFile(1_000, seed: 24)
            try await expectOverQuota("5000") { _ = try await alice.upload(d, of: fileD, at: 0) }
            // Nothing of a refused upload was kept: still absent for her after the refusal.
            try await FileTransferChecks.expectUnavailable { _ = try await alice.download(fileD, from: 0) }
            // The collection frees what no record refers to, and her quota with it.
            let collected = try await world.server.collectFiles(
                SyncFileCollection(unfinishedFor: .zero, unreferencedFor: .zero))
            try expectEqual(collected.files, 3, "A, B and C: no record refers to them")
            try expect(try await alice.upload(d, of: fileD, at: 0).complete, "room again once they are collected")
        },
        ConformanceCheck(.adversary, "anIdleUploadIsCollectedAndItsSlotFreedAndPiecesAtOnceCannotOverfillTheQuota") {
            c in
            let world = try await TransportWorld.make(
                c, access: FileTransferChecks.access, limits: quotaLimits, schema: PostcardDomain.schema())
            let alice = world.host.remote(tokens: FixedToken("token-a"))
            // Eight first pieces at once for two slots: exactly two uploads start.
            let files = try (0..<8).map { try quotaFile(100, seed: 30 + UInt32($0)) }
            let started = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (bytes, file) in files {
                    group.addTask {
                        do {
                            return try await alice.upload(bytes.prefix(50), of: file, at: 0).received == 50
                        } catch let error as SyncTransportError where error.status == 413 {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            try expectEqual(started, 2, "uploads started at once against two slots")
            let collected = try await world.server.collectFiles(
                SyncFileCollection(unfinishedFor: .zero, unreferencedFor: .zero))
            try expectEqual(collected.uploads, 2, "both idle uploads are collected")
            try expectEqual(collected.bytes, 100, "with the 50 bytes each had received")
            for (bytes, file) in files.prefix(2) {
                try expectEqual(
                    try await alice.upload(Data(), of: file, at: 0).received, 0, "a collected upload starts over")
                try expect(try await alice.upload(bytes, of: file, at: 0).complete, "and finishes")
            }
        },
    ]
}
