import Foundation
import Strata
import StrataTools

/// Files beside the records: bytes stored once per digest and streamed in chunks, checked against
/// their digest; reference counts kept by every write path, so the last record going (a cascade
/// included) frees the bytes in the same save; uploads that resume after an abrupt stop; garbage
/// collection after a grace period; damage found by verify and reads, never read back silently.
enum FileChecks {
    static let all: [ConformanceCheck] = [
        ConformanceCheck(.files, "aFileStreamsInAndOutByItsDigest") { c in
            let store = try await c.store(PostcardDomain.schema())
            let bytes = PostcardDomain.bytes(3 * FileStorage.chunkSize + 12_345)
            let file = try await store.files.write(contentsOf: PostcardDomain.pieces(bytes, of: 100_003))
            try expectEqual(file.size, Int64(bytes.count))
            try expectEqual(file.digest, SHA256.digest(bytes), "the digest is SHA-256 of the bytes")
            try expect(try await store.files.contains(file))
            var chunks: [Int] = []
            var read = Data()
            for try await chunk in store.files.contents(of: file) {
                chunks.append(chunk.count)
                read.append(chunk)
            }
            try expectEqual(read, bytes, "the bytes read back are the bytes written")
            try expectEqual(chunks.count, 4, "read a chunk at a time: \(chunks)")
            try expect(chunks.allSatisfy { $0 <= FileStorage.chunkSize })
            try expectEqual(try await store.files.data(of: file), bytes)
            var tail = Data()
            for try await chunk in store.files.contents(of: file, from: 300_000) { tail.append(chunk) }
            try expectEqual(tail, bytes.subdata(in: 300_000..<bytes.count), "a read from an offset")
            let empty = try await store.files.write(Data())
            try expectEqual(empty.text, "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855:0")
            try expectEqual(try await store.files.data(of: empty), Data())
            let abc = try await store.files.write(Data("abc".utf8))
            try expectEqual(abc.digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            try expectEqual(FileReference(text: abc.text), abc, "the stored text reads back as the reference")
        },

        ConformanceCheck(.files, "theSameBytesAreStoredOnce") { c in
            let store = try await c.store(PostcardDomain.schema())
            let bytes = PostcardDomain.bytes(FileStorage.chunkSize + 1)
            let first = try await store.files.write(bytes)
            let second = try await store.files.write(contentsOf: PostcardDomain.pieces(bytes, of: 65_536))
            try expectEqual(first, second)
            try expectEqual(try await chunkCount(store), 2, "one copy of the bytes, two chunks")
            try expectEqual(try await store.files.verify().map(\.description), [])
        },

        ConformanceCheck(.files, "theLastReferenceFreesTheBytesOnEveryWritePath") { c in
            let store = try await c.store(PostcardDomain.schema())
            let (sea, hill, dune) = (
                try await store.files.write(PostcardDomain.bytes(70_000, seed: 1)),
                try await store.files.write(PostcardDomain.bytes(70_000, seed: 2)),
                try await store.files.write(PostcardDomain.bytes(70_000, seed: 3))
            )
            let cards = store.repository(Postcard.self)
            try await cards.insert(Postcard(id: "a", photo: sea, back: hill))
            try await store.transaction { tx in try tx.insert(Postcard(id: "b", photo: sea)) }
            let context = store.makeContext()
            try await context.insert(Postcard(id: "c", photo: hill))
            try await context.save()
            try expectEqual(try await store.files.referenceCount(of: sea), 2)
            try expectEqual(try await store.files.referenceCount(of: hill), 2, "a photo and a back both count")
            // A save that fails changes no count.
            try await expectError(.duplicateID) { try await cards.insert(Postcard(id: "a", photo: dune)) }
            try expectEqual(try await store.files.referenceCount(of: dune), 0)
            try await cards.update(Postcard(id: "a", photo: sea, back: nil))
            try expectEqual(try await store.files.referenceCount(of: hill), 1, "an update lets go of the old file")
            try await cards.delete("c")
            try expect(!(try await store.files.contains(hill)), "the last reference gone, the bytes are freed")
            try await expectError(.fileUnavailable) { _ = try await store.files.data(of: hill) }
            _ = try await store.transaction { tx in
                try tx.delete(
                    matching: FetchPlan(entity: "Postcard", predicate: .compare("id", .equal, .string("b"), [])))
            }
            try expectEqual(try await store.files.referenceCount(of: sea), 1, "a batch delete counts too")
            // A cascade frees what its records held.
            try await store.repository(Album.self).insert(Album(id: "trip", title: "Trip"))
            try await cards.insert(Postcard(id: "d", photo: dune, album: "trip"))
            try await cards.update(Postcard(id: "a", photo: sea, album: "trip"))
            try await store.repository(Album.self).delete("trip")
            try expectEqual(try await cards.count(), 0)
            let (seaKept, duneKept) = (try await store.files.contains(sea), try await store.files.contains(dune))
            try expect(!seaKept && !duneKept, "the cascade freed both")
            try expectEqual(try await chunkCount(store), 0, "no chunk is left behind")
            try expectEqual(try await store.files.verify().map(\.description), [])
        },

        ConformanceCheck(.files, "anUploadResumesWhereItStoppedAfterAnAbruptStop", requires: [.abruptStop]) { c in
            var store = try await c.store(PostcardDomain.schema())
            let bytes = PostcardDomain.bytes(2 * FileStorage.chunkSize + 50_000, seed: 7)
            var upload = try await store.files.startUpload(expecting: nil)
            try await upload.append(bytes.subdata(in: 0..<300_000))
            let id = upload.id
            store = try await c.reopenAfterAbruptStop(store)
            var resumed = try expectNotNil(try await store.files.upload(id), "the upload survives the stop")
            try expectEqual(resumed.received, 300_000, "it received what was acknowledged")
            try await expectError(.versionMismatch) {
                try await resumed.append(bytes.subdata(in: 200_000..<300_000), at: 200_000)
            }
            try await resumed.append(bytes.subdata(in: 300_000..<bytes.count), at: 300_000)
            let file = try await resumed.finish()
            try expectEqual(file.digest, SHA256.digest(bytes))
            try expectEqual(try await store.files.data(of: file), bytes, "no byte lost or doubled")
            try expect(try await store.files.upload(id) == nil, "a finished upload is gone")
        },

        ConformanceCheck(.files, "anUploadExpectingAFileRefusesOtherBytes") { c in
            let store = try await c.store(PostcardDomain.schema())
            let wanted = PostcardDomain.bytes(1_000, seed: 1)
            guard let expected = FileReference(digest: SHA256.digest(wanted), size: 1_000) else {
                throw ConformanceFailure("no reference", fileID: #fileID, filePath: #filePath, line: #line)
            }
            var upload = try await store.files.startUpload(expecting: expected)
            try await expectError(.validationFailed) { try await upload.append(PostcardDomain.bytes(1_001)) }
            try await upload.append(PostcardDomain.bytes(1_000, seed: 2))
            try await expectError(.validationFailed) { _ = try await upload.finish() }
            try expect(!(try await store.files.contains(expected)))
            try expectEqual(try await chunkCount(store), 0, "the refused upload left nothing")
            var again = try await store.files.startUpload(expecting: expected)
            try await again.append(wanted)
            try expectEqual(try await again.finish(), expected)
        },

        ConformanceCheck(.files, "garbageCollectionRemovesOnlyUnreferencedFilesAfterTheGracePeriod") { c in
            let store = try await c.store(PostcardDomain.schema())
            let kept = try await store.files.write(PostcardDomain.bytes(10_000, seed: 1))
            let loose = try await store.files.write(PostcardDomain.bytes(10_000, seed: 2))
            var abandoned = try await store.files.startUpload()
            try await abandoned.append(PostcardDomain.bytes(5_000, seed: 3))
            try await store.repository(Postcard.self).insert(Postcard(id: "a", photo: kept))
            try expectEqual(try await store.files.collectGarbage(), FileStorage.Collected(), "within the grace period")
            try expect(try await store.files.contains(loose))
            let collected = try await store.files.collectGarbage(unreferencedFor: .zero)
            try expectEqual(collected, FileStorage.Collected(files: 1, uploads: 1, bytes: 15_000))
            let (looseKept, keptKept) = (try await store.files.contains(loose), try await store.files.contains(kept))
            try expect(!looseKept && keptKept, "the loose file went, the referenced one stayed")
            try expect(try await store.files.upload(abandoned.id) == nil)
            try expectEqual(try await chunkCount(store), 1, "only the referenced file's chunk is left")
        },

        ConformanceCheck(.files, "damageAndMissingFilesAreFoundNeverReadBack") { c in
            let store = try await c.store(PostcardDomain.schema())
            let bytes = PostcardDomain.bytes(FileStorage.chunkSize + 100, seed: 5)
            let photo = try await store.files.write(bytes)
            let absent = try expectNotNil(FileReference(digest: String(repeating: "ab", count: 32), size: 3))
            try await store.repository(Postcard.self).insert(Postcard(id: "a", photo: photo, back: absent))
            try await expectError(.fileUnavailable) { _ = try await store.files.data(of: absent) }
            try await expectError(.typeMismatch, entity: "Postcard", property: "photo") {
                try await store.transaction { tx in
                    try tx.update("Postcard", id: .string("a"), set: ["photo": .string("sha256:nope:3")])
                }
            }
            let found = try await store.files.verify()
            try expectEqual(found.map(\.code), [.fileUnavailable], "\(found)")
            try expectEqual(found.first?.property, "back")
            // One byte of the second chunk flipped, then the chunk cut short.
            let key = try await chunkKeys(store)[1]
            var chunk = try expectNotNil(try await store.backend.read { try $0.metadata(key) })
            chunk[7] ^= 0xff
            let flipped = chunk
            try await store.backend.write { try $0.setMetadata(key, flipped) }
            try await expectError(.corruptStore) { _ = try await store.files.data(of: photo) }
            try expect(try await store.files.verify().contains { $0.code == .corruptStore })
            try await store.backend.write { try $0.setMetadata(key, Array(flipped.prefix(10))) }
            try await expectError(.corruptStore) { _ = try await store.files.data(of: photo) }
        },

        ConformanceCheck(.files, "aCopyOfTheStoreCarriesItsFilesAndCounts") { c in
            let store = try await c.store(PostcardDomain.schema())
            let bytes = PostcardDomain.bytes(FileStorage.chunkSize * 2 + 3, seed: 9)
            let photo = try await store.files.write(bytes)
            let back = try await store.files.write(PostcardDomain.bytes(10, seed: 4))
            try await store.repository(Postcard.self).insert(contentsOf: [
                Postcard(id: "a", photo: photo, back: back), Postcard(id: "b", photo: photo),
            ])
            let copy = try await c.store(PostcardDomain.schema())
            let outcome = try await StoreCopier(from: store, to: copy).run()
            try expect(outcome.isEqual, "the records copied equal")
            try expectEqual(outcome.files, 2)
            try expectEqual(try await copy.files.data(of: photo), bytes, "the bytes came along")
            try expectEqual(try await copy.files.referenceCount(of: photo), 2, "and the copy counts its references")
            try expectEqual(try await copy.files.verify().map(\.description), [])
        },
    ]

    static func chunkKeys(_ store: Store) async throws -> [String] {
        try await store.backend.read { transaction in
            try transaction.metadata(prefix: "strata.file.chunk.", after: nil, limit: nil).map(\.key)
        }
    }

    static func chunkCount(_ store: Store) async throws -> Int { try await chunkKeys(store).count }
}
