import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Files over the transport: a file's bytes go up before the record referring to it, resumably,
/// and come down to the clients that may read the record, resumably and checked by digest; a
/// record may arrive before its file (reads say so); knowing a digest gives no one the bytes.
enum FileTransferChecks {
    /// Postcards scoped to their owner; albums open to all.
    static var access: SyncAccess {
        var access = SyncAccess()
        access.scope(Postcard.self) { identity in \Postcard.owner == identity.id }
        return access
    }

    static func world(_ c: ConformanceContext) async throws -> TransportWorld {
        try await TransportWorld.make(c, access: access, schema: PostcardDomain.schema())
    }

    static func client(
        _ world: TransportWorld, _ id: String, token: String, options: SyncEngine.Options = .init()
    ) async throws -> (Store, SyncEngine) {
        let store = try await world.context.store(PostcardDomain.schema()).withSync(SyncConfiguration(clientID: id))
        return (
            store, try SyncEngine(store: store, remote: world.host.remote(tokens: FixedToken(token)), options: options)
        )
    }

    static let all: [ConformanceCheck] = [
        ConformanceCheck(.transport, "aFileGoesUpBeforeItsRecordAndDownToThoseWhoMayReadIt") { c in
            let world = try await world(c)
            let (alice, aliceEngine) = try await client(world, "a", token: "token-a")
            let bytes = PostcardDomain.bytes(3 * FileStorage.chunkSize + 1_000, seed: 11)
            let photo = try await alice.files.write(bytes)
            try await alice.repository(Postcard.self).insert(Postcard(id: "p1", photo: photo, owner: "alice"))
            try await aliceEngine.syncNow()
            try expectEqual(try await world.server.store.files.data(of: photo), bytes, "the server holds the bytes")
            try expectEqual(try await world.server.store.files.referenceCount(of: photo), 1)
            // Alice's second device gets the record and, in the same sync, the file.
            let (tablet, tabletEngine) = try await client(world, "a2", token: "token-a")
            let report = try await tabletEngine.syncNow()
            try expectEqual(report.filesDownloaded, 1)
            try expectEqual(try await tablet.files.data(of: photo), bytes, "the bytes came down whole")
            try expectEqual(await tabletEngine.status.files.bytesDownloaded, Int64(bytes.count))
            // Bob may read no postcard of Alice's: no record, no bytes, even knowing the digest.
            let (bob, bobEngine) = try await client(world, "b", token: "token-b")
            try await bobEngine.syncNow()
            try expectEqual(try await bob.repository(Postcard.self).count(), 0)
            let bobRemote = world.host.remote(tokens: FixedToken("token-b"))
            try await expectUnavailable { _ = try await bobRemote.download(photo, from: 0) }
            // Nor may he write a record referring to it without uploading the bytes himself.
            try await bob.repository(Postcard.self).insert(Postcard(id: "p2", photo: photo, owner: "bob"))
            let pushed = try await bobEngine.syncNow()
            try expectEqual(pushed.rejected, 1, "a reference to a file Bob cannot read is refused")
            try expectEqual(try await world.server.store.repository(Postcard.self).count(), 1)
        },

        ConformanceCheck(.transport, "anUploadAndADownloadCutOffResumeWhereTheyStopped") { c in
            let world = try await world(c)
            let (alice, aliceEngine) = try await client(world, "a", token: "token-a")
            let bytes = PostcardDomain.bytes(2 * FileStorage.chunkSize + 77, seed: 12)
            let photo = try await alice.files.write(bytes)
            // A first attempt got two pieces, 300,000 bytes, to the server before the connection went.
            let remote = world.host.remote(tokens: FixedToken("token-a"))
            _ = try await remote.upload(bytes.subdata(in: 0..<200_000), of: photo, at: 0)
            let first = try await remote.upload(bytes.subdata(in: 200_000..<300_000), of: photo, at: 200_000)
            try expectEqual(first, FileTransferState(received: 300_000, complete: false))
            let stale = try await remote.upload(bytes.subdata(in: 0..<1_000), of: photo, at: 0)
            try expectEqual(stale.received, 300_000, "a piece resent from an old offset is not applied")
            try await alice.repository(Postcard.self).insert(Postcard(id: "p1", photo: photo, owner: "alice"))
            try await aliceEngine.syncNow()
            try expectEqual(
                await aliceEngine.status.files.bytesUploaded, Int64(bytes.count - 300_000), "only the rest went up")
            try expectEqual(try await world.server.store.files.data(of: photo), bytes)
            // The tablet's download stopped after one chunk; the next one picks it up.
            let (tablet, tabletEngine) = try await client(world, "a2", token: "token-a", options: noDownloads)
            try await tabletEngine.syncNow()
            var partial = try await tablet.files.startUpload(expecting: photo)
            try await partial.append(bytes.subdata(in: 0..<FileStorage.chunkSize))
            let key = MetadataKeys.syncFileDownloadPrefix + photo.digest
            let id = partial.id
            try await tablet.backend.write { try $0.setMetadata(key, Array(id.utf8)) }
            try await tabletEngine.download(photo)
            try expectEqual(
                await tabletEngine.status.files.bytesDownloaded, Int64(bytes.count - FileStorage.chunkSize),
                "only the rest came down")
            try expectEqual(try await tablet.files.data(of: photo), bytes, "no byte lost or doubled")
        },

        ConformanceCheck(.transport, "aRecordMayArriveBeforeItsFileAndReadsSaySo") { c in
            let world = try await world(c)
            let (alice, aliceEngine) = try await client(world, "a", token: "token-a")
            let bytes = PostcardDomain.bytes(5_000, seed: 13)
            let photo = try await alice.files.write(bytes)
            try await alice.repository(Postcard.self).insert(Postcard(id: "p1", photo: photo, owner: "alice"))
            try await aliceEngine.syncNow()
            let (tablet, tabletEngine) = try await client(world, "a2", token: "token-a", options: noDownloads)
            try await tabletEngine.syncNow()
            let card = try expectNotNil(try await tablet.repository(Postcard.self).fetch("p1"), "the record came")
            try expectEqual(card.photo, photo)
            try expect(!(try await tablet.files.contains(photo)), "its file did not")
            try expectEqual(try await tablet.files.missing(), [photo], "the store names the file it lacks")
            try await expectError(.fileUnavailable) { _ = try await tablet.files.data(of: photo) }
            try await tabletEngine.download(photo)
            try expectEqual(try await tablet.files.data(of: photo), bytes)
            try expectEqual(try await tablet.files.missing(), [], "nothing missing once it came down")
            // Deleting the record on the server frees the bytes there and, after a pull, here.
            try await world.server.store.repository(Postcard.self).delete("p1")
            try await tabletEngine.syncNow()
            try expect(!(try await tablet.files.contains(photo)), "the last reference went, so did the bytes")
            try expect(!(try await world.server.store.files.contains(photo)))
        },
    ]

    static var noDownloads: SyncEngine.Options {
        var options = SyncEngine.Options()
        options.downloadsFiles = false
        return options
    }

    /// Expects a download refused as unavailable: a 404 over the wire, `fileUnavailable` in process.
    static func expectUnavailable(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as SyncTransportError where error.status == 404 {
            return
        } catch let error as StrataError where error.code == .fileUnavailable {
            return
        }
        throw ConformanceFailure("the download was not refused", fileID: #fileID, filePath: #filePath, line: #line)
    }
}
