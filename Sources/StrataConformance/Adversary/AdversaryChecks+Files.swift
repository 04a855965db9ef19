import Foundation
import Strata
import StrataSync

/// Uploads and downloads take only what the document says: a piece of at most 256 KiB lying
/// inside its file, a reference whose size is the file's. Everything else is a 400 or a 404 —
/// never a 500, and never an answer naming the server's own upload IDs.
extension AdversaryChecks {
    /// `body` fails as a bad request (400), naming `words`.
    static func expectBadRequest(_ words: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as SyncTransportError {
            try expectEqual(error.status, 400, "\(error)")
            try expect(error.reason.contains(words), "the answer names \(words): \(error.reason)")
            return
        } catch let error as StrataError {
            try expectEqual(error.code, .invalidQuery, "\(error)")
            try expect(error.message.contains(words), "the answer names \(words): \(error.message)")
            return
        }
        throw ConformanceFailure("\(words): accepted", fileID: #fileID, filePath: #filePath, line: #line)
    }

    static let files: [ConformanceCheck] = [
        ConformanceCheck(.adversary, "aFilePieceIsBoundedAndLiesInsideItsFileAndAWrongSizeIsAbsent") { c in
            let world = try await FileTransferChecks.world(c)
            let remote = world.host.remote(tokens: FixedToken("token-a"))
            let limit = SyncWire.filePieceBytes
            let big = try expectNotNil(FileReference(digest: String(repeating: "ab", count: 32), size: 1 << 40))
            try await expectBadRequest("\(limit)") {
                _ = try await remote.upload(Data(count: limit + 1), of: big, at: 0)
            }
            let bytes = PostcardDomain.bytes(1_000, seed: 3)
            let file = try expectNotNil(FileReference(digest: SHA256.digest(bytes), size: Int64(bytes.count)))
            try await expectBadRequest("inside") { _ = try await remote.upload(bytes, of: file, at: 1) }
            try await expectBadRequest("offset") { _ = try await remote.upload(bytes, of: file, at: -1) }
            try await expectBadRequest("inside") { _ = try await remote.upload(Data(), of: file, at: 1_001) }
            let state = try await remote.upload(bytes, of: file, at: 0)
            try expect(state.complete, "the whole file in one piece")
            try expectEqual(try await remote.download(file, from: 0), bytes, "her own file comes down")
            // The right digest with another size is no file of hers: absent, not a store failure.
            for size in [Int64(bytes.count) + 1, Int64(bytes.count) - 1] {
                let wrong = try expectNotNil(FileReference(digest: file.digest, size: size))
                try await FileTransferChecks.expectUnavailable { _ = try await remote.download(wrong, from: 0) }
            }
            // Bytes that are not the file named: refused without the server's upload ID.
            let other = PostcardDomain.bytes(1_000, seed: 4)
            let claimed = try expectNotNil(FileReference(digest: SHA256.digest(other), size: 1_000))
            do {
                _ = try await remote.upload(bytes, of: claimed, at: 0)
                try expect(false, "bytes of another digest were accepted")
            } catch let error as SyncTransportError {
                try expectEqual(error.status, 400, "\(error)")
                try expect(!error.reason.contains("upload "), "no upload ID: \(error.reason)")
                try expect(error.reason.contains(claimed.digest), "the answer names the file: \(error.reason)")
            } catch let error as StrataError {
                try expectEqual(error.code, .validationFailed, "\(error)")
                try expect(!error.message.contains("upload "), "no upload ID: \(error.message)")
            }
        }
    ]
}
