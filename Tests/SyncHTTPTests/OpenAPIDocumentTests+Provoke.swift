import Foundation
import StrataConformance
import StrataInMemory
import Testing

@testable import Strata
@testable import StrataSync
@testable import StrataSyncServer

/// The requests that make a server give each answer the document lists.
extension OpenAPIDocumentTests {
    static let routes = [(SyncWire.pushPath, "POST"), (SyncWire.pullPath, "GET"), (SyncWire.snapshotPath, "GET")]

    /// The seed's mutations as client "a" queues them.
    static func seedMutations() async throws -> [SyncMutation] {
        let store = Store(
            backend: InMemoryBackend(schema: try TravelDomain.schema()), sync: SyncConfiguration(clientID: "a"))
        _ = try await TravelData.seed(store)
        let engine = try SyncEngine(store: store, remote: InProcessTransport(server: SyncServer(store: store)))
        return try await engine.pendingMutations()
    }

    static func pushBody(_ mutations: [SyncMutation], version: Int, client: String = "a") throws -> [UInt8] {
        var request = PushRequest(clientID: client, mutations: mutations)
        request.version = version
        return try SyncWire.encode(request)
    }

    static func provokeEveryAnswer(_ served: Served) async throws {
        let mutations = try await seedMutations()
        let first = try #require(mutations.first)
        var pushed = try await served.send("POST", SyncWire.pushPath, body: try pushBody(mutations, version: 2))
        #expect(pushed.status == 200)
        pushed = try await served.send("POST", SyncWire.pushPath, body: try pushBody(mutations, version: 1))
        #expect(pushed.status == 200, "a retry in format 1: duplicates")
        let delete = SyncMutation(
            id: MutationID(clientID: "a", sequence: 1_000), kind: .delete, entity: first.entity,
            recordID: first.recordID,
            timestamp: HybridTimestamp(millis: 1_764_201_600_000, node: "a"))
        #expect(
            try await served.send("POST", SyncWire.pushPath, body: try pushBody([delete], version: 2)).status == 200)
        for version in ["1", "2"] {
            #expect(
                try await served.send("GET", SyncWire.pullPath, query: ["v": version, "client": "a"]).status == 200)
            let page = try await served.send(
                "GET", SyncWire.snapshotPath, query: ["v": version, "client": "a", "limit": "3"])
            #expect(page.status == 200)
            let next = try SyncWire.decodeSnapshotResponse(page.body, version: Int(version) ?? 0).next
            let position = try #require(next, "the snapshot goes on")
            var query = ["v": version, "client": "a", "entity": position.entity, "limit": "3"]
            if let after = position.after { query["after"] = SyncWire.encodeID(after) }
            #expect(try await served.send("GET", SyncWire.snapshotPath, query: query).status == 200)
            // Subscriptions narrow both reads.
            let subscribed = [
                "v": version, "client": "a",
                "subscriptions": #"[{"name":"ana","entity":"Person","where":"name == \"Ana\"","include":["trips"]}]"#,
            ]
            for path in [SyncWire.pullPath, SyncWire.snapshotPath] {
                let answer = try await served.send("GET", path, query: subscribed)
                #expect(answer.status == 200, "\(path) with subscriptions")
            }
        }
        try await provokeRefusals(served, mutations: mutations)
        try await provokeFiles(served)
    }

    /// A small file: its bytes and its reference.
    static let file: (bytes: [UInt8], reference: FileReference) = {
        let bytes = Array("a postcard from Lisbon".utf8)
        return (bytes, FileReference(digest: SHA256.digest(bytes), size: Int64(bytes.count))!)
    }()

    static func files(_ file: FileReference, offset: Int64 = 0) -> (path: String, query: [String: String]) {
        (SyncWire.filesPath + file.digest, ["size": String(file.size), "offset": String(offset)])
    }

    static func provokeFiles(_ served: Served) async throws {
        let (bytes, reference) = file
        let (path, query) = files(reference)
        func expect(_ status: Int, _ answer: SyncWire.Response, _ what: String) {
            #expect(answer.status == status, "\(what): \(String(decoding: answer.body, as: UTF8.self))")
        }
        expect(200, try await served.send("PUT", path, query: query, body: Array(bytes.prefix(5))), "a first piece")
        expect(
            200,
            try await served.send(
                "PUT", path, query: files(reference, offset: 5).query, body: Array(bytes.dropFirst(5))), "the rest")
        let read = try await served.send("GET", path, query: query)
        expect(200, read, "alice reads back what she uploaded")
        #expect(read.body == bytes)
        expect(404, try await served.send("GET", path, token: "token-b", query: query), "bob may not read it")
        expect(400, try await served.send("GET", path, query: ["size": "x"]), "a malformed size")
        let wrong = try #require(FileReference(digest: String(repeating: "0", count: 64), size: 3))
        let (wrongPath, wrongQuery) = files(wrong)
        expect(
            400, try await served.send("PUT", wrongPath, query: wrongQuery, body: [1, 2, 3]), "bytes not the digest's")
        for method in ["PUT", "GET"] {
            expect(401, try await served.send(method, path, token: nil, query: query), "\(method) without a token")
        }
        for wrong in ["POST", "PATCH", "DELETE", "OPTIONS"] {
            expect(405, try await served.send(wrong, path, query: query), "\(wrong) on files")
        }
        let head = try await served.send("HEAD", path, query: query)
        expect(200, head, "HEAD of her file")
        #expect(head.body.isEmpty, "HEAD answers without a body")
        expect(404, try await served.send("HEAD", path, token: "token-b", query: query), "HEAD as bob")
        let large = [UInt8](repeating: 7, count: 300 << 10)
        expect(413, try await served.send("PUT", wrongPath, query: wrongQuery, body: large), "a piece over 256 KiB")
        let claimed = try #require(FileReference(digest: String(repeating: "1", count: 64), size: 1 << 40))
        let (claimedPath, claimedQuery) = files(claimed)
        expect(413, try await served.send("PUT", claimedPath, query: claimedQuery), "an upload over the file quota")
    }

    static func provokeRefusals(_ served: Served, mutations: [SyncMutation]) async throws {
        let pull = ["v": "2", "client": "a"]
        func expect(_ status: Int, _ answer: SyncWire.Response, _ what: String) {
            #expect(answer.status == status, "\(what): \(String(decoding: answer.body, as: UTF8.self))")
        }
        expect(
            400, try await served.send("POST", SyncWire.pushPath, body: Array(#"{"version":2,"clientID":"a","#.utf8)),
            "a cut body")
        expect(
            400, try await served.send("GET", SyncWire.pullPath, query: pull.merging(["cursor": "-1"]) { $1 }),
            "cursor -1")
        expect(
            400, try await served.send("GET", SyncWire.snapshotPath, query: pull.merging(["limit": "x"]) { $1 }),
            "limit x")
        let seventeen = (1...17).map(String.init).joined(separator: ",")
        for snapshots in ["-1", "1,x", "1,,2", seventeen] {
            expect(
                400,
                try await served.send("GET", SyncWire.pullPath, query: pull.merging(["snapshots": snapshots]) { $1 }),
                "snapshots \(snapshots)")
        }
        expect(
            200, try await served.send("GET", SyncWire.pullPath, query: pull.merging(["snapshots": "0,3"]) { $1 }),
            "snapshots 0,3")
        for subscriptions in [#"{"name":"x"}"#, #"[{"name":"x","entity":"Person","where":"nme == 1"}]"#] {
            expect(
                400,
                try await served.send(
                    "GET", SyncWire.pullPath, query: pull.merging(["subscriptions": subscriptions]) { $1 }),
                "subscriptions \(subscriptions)")
        }
        for (path, method) in routes {
            let body = method == "POST" ? try pushBody([], version: 2) : []
            let query = method == "GET" ? pull : [:]
            expect(
                401, try await served.send(method, path, token: nil, query: query, body: body),
                "\(path) without a token")
            let other = method == "POST" ? try pushBody(Array(mutations.prefix(1)), version: 2) : []
            expect(
                403, try await served.send(method, path, token: "token-b", query: query, body: other), "\(path) as bob")
            for wrong in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] where wrong != method {
                expect(405, try await served.send(wrong, path, query: query), "\(wrong) \(path)")
            }
            // HEAD is answered wherever GET is, without the body.
            let head = try await served.send("HEAD", path, query: method == "GET" ? pull : [:])
            expect(method == "GET" ? 200 : 405, head, "HEAD \(path)")
            #expect(head.body.isEmpty, "HEAD \(path) answers without a body")
            let unknown = method == "POST" ? Array(#"{"version":99,"clientID":"a","mutations":[]}"#.utf8) : []
            expect(
                409,
                try await served.send(
                    method, path, query: method == "GET" ? ["v": "99", "client": "a"] : [:], body: unknown),
                "format 99 on \(path)")
        }
        expect(
            410,
            try await served.send(
                "GET", SyncWire.pullPath, query: pull.merging(["cursor": "1", "epoch": "old"]) { $1 }), "another epoch")
        let large = try pushBody(Array(repeating: mutations[0], count: 2_000), version: 2)
        expect(413, try await served.send("POST", SyncWire.pushPath, body: large), "a body over 256 KiB")
    }

    static func provokeRateLimits(_ served: Served) async throws {
        let query = ["v": "2", "client": "a"]
        #expect(try await served.send("GET", SyncWire.pullPath, query: query).status == 200, "the burst of one")
        for (path, method) in routes {
            let body = method == "POST" ? try pushBody([], version: 2) : []
            let answer = try await served.send(method, path, query: method == "GET" ? query : [:], body: body)
            #expect(answer.status == 429, "\(path) after the burst is spent")
        }
        let (path, fileQuery) = files(file.reference)
        for method in ["PUT", "GET"] {
            #expect(try await served.send(method, path, query: fileQuery).status == 429, "\(method) files")
        }
    }

    static func provokeFailures(_ served: Served) async throws {
        let mutations = try await seedMutations()
        let query = ["v": "2", "client": "a"]
        // A full disk: the write routes answer 507, nothing kept.
        served.backend.inject(.diskFullAtCommit)
        #expect(
            try await served.send("POST", SyncWire.pushPath, body: try pushBody(mutations, version: 2)).status == 507)
        let postcard = Array("another postcard, from Porto".utf8)
        let another = try #require(FileReference(digest: SHA256.digest(postcard), size: Int64(postcard.count)))
        let (anotherPath, anotherQuery) = files(another)
        served.backend.inject(.diskFullAtCommit)
        #expect(try await served.send("PUT", anotherPath, query: anotherQuery, body: postcard).status == 507)
        served.backend.inject(.failAtCommit)
        #expect(
            try await served.send("POST", SyncWire.pushPath, body: try pushBody(mutations, version: 2)).status == 500)
        served.backend.failReads(true)
        #expect(try await served.send("GET", SyncWire.pullPath, query: query).status == 500)
        #expect(try await served.send("GET", SyncWire.snapshotPath, query: query).status == 500)
        served.backend.failReads(false)
        try await served.server.store.close()
        #expect(
            try await served.send("POST", SyncWire.pushPath, body: try pushBody(mutations, version: 2)).status == 503)
        #expect(try await served.send("GET", SyncWire.pullPath, query: query).status == 503)
        #expect(try await served.send("GET", SyncWire.snapshotPath, query: query).status == 503)
        let (path, fileQuery) = files(file.reference)
        for method in ["PUT", "GET"] {
            #expect(try await served.send(method, path, query: fileQuery).status == 503, "\(method) files, closed")
        }
    }
}
