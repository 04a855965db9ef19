import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// Requests no client of this library sends, answered alike by every transport: a malformed
/// query is 400 (never read as "from the start"), a wrong method is 405 with `Allow` (HEAD is GET's), an unknown
/// route 404 — over HTTP exactly as in process, because both reach one `SyncEndpoint`.
extension TransportChecks {
    static let malformed: [ConformanceCheck] = [
        ConformanceCheck(.transport, "malformedQueriesAre400AndWrongMethods405OnEveryRoute") { c in
            let world = try await TransportWorld.make(c)
            let auth = ["authorization": "Bearer token-a"]
            func status(_ method: String, _ path: String, _ query: [String: String] = [:]) async throws
                -> SyncWire.Response
            {
                try await world.host.send(SyncWire.Request(method: method, path: path, query: query, headers: auth))
            }
            let pull = ["v": String(PullRequest.currentVersion), "client": "a"]
            let snapshot = ["v": String(SnapshotRequest.currentVersion), "client": "a"]
            try expectEqual(try await status("GET", SyncWire.pullPath, pull).status, 200, "a well-formed pull")
            for (name, value) in [
                ("cursor", "-5"), ("cursor", "abc"), ("limit", "abc"), ("limit", "-1"), ("wait", "-10"),
            ] {
                let answer = try await status("GET", SyncWire.pullPath, pull.merging([name: value]) { $1 })
                try expectEqual(answer.status, 400, "a pull with \(name)=\(value)")
            }
            for (name, value) in [("limit", "abc"), ("limit", "-1")] {
                let answer = try await status("GET", SyncWire.snapshotPath, snapshot.merging([name: value]) { $1 })
                try expectEqual(answer.status, 400, "a snapshot with \(name)=\(value)")
            }
            let routes = [
                (SyncWire.pushPath, "POST", "POST"), (SyncWire.pullPath, "GET", "GET, HEAD"),
                (SyncWire.snapshotPath, "GET", "GET, HEAD"),
            ]
            for (path, method, allowed) in routes {
                let permitted = Set(allowed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
                for wrong in ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
                where !permitted.contains(wrong) {
                    let answer = try await status(wrong, path, pull)
                    try expectEqual(answer.status, 405, "\(wrong) \(path)")
                    try expectEqual(answer.headers["allow"], allowed, "\(wrong) \(path) names the methods it allows")
                }
                // HEAD is answered as GET is, without the body.
                if method == "GET" {
                    let (get, head) = (try await status("GET", path, pull), try await status("HEAD", path, pull))
                    try expectEqual(head.status, get.status, "HEAD \(path) answers as GET does")
                    try expect(head.body.isEmpty, "HEAD \(path) answers without a body")
                }
            }
            try expectEqual(try await status("GET", "/strata/v1/nothing").status, 404, "an unknown route")
            try expectEqual(try await world.server.store.history().count, 0, "the server's store is untouched")
        }
    ]
}
