import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// The public messages' `Codable` forms are the wire's: a client that builds a body with
/// `JSONEncoder` (as a test, a script or another Swift client does) sends what the server reads,
/// in the format the message carries, and `JSONDecoder` reads the server's answers in either
/// format as the library's own decoder does.
extension TransportChecks {
    static let codable: [ConformanceCheck] = [
        ConformanceCheck(.transport, "messagesEncodedWithJSONEncoderAreWhatTheServerReadsInTheFormatTheyCarry") { c in
            let world = try await TransportWorld.make(c)
            let store = try await c.store().withSync(SyncConfiguration(clientID: "a"))
            let engine = try SyncEngine(store: store, remote: world.host.remote(tokens: FixedToken("token-a")))
            _ = try await TravelData.seed(store)
            let pending = try await engine.pendingMutations()
            try expect(pending.count >= 10, "the seed's mutations wait in the outbox: \(pending.count)")
            let auth = ["authorization": "Bearer token-a", "content-type": "application/json"]
            for (version, mutations) in [
                (2, pending.prefix(pending.count / 2)), (1, pending.dropFirst(pending.count / 2)),
            ] {
                var request = PushRequest(
                    clientID: "a", mutations: Array(mutations), schemaVersion: store.schema.version)
                request.version = version
                let body = Array(try JSONEncoder().encode(request))
                try expectEqual(
                    try JSONDecoder().decode(PushRequest.self, from: Data(body)), request,
                    "a format-\(version) push read back by JSONDecoder")
                let answer = try await world.host.send(
                    SyncWire.Request(method: "POST", path: SyncWire.pushPath, headers: auth, body: body))
                let text = String(decoding: answer.body.prefix(300), as: UTF8.self)
                try expectEqual(answer.status, 200, "a format-\(version) push built with JSONEncoder: \(text)")
                let response = try JSONDecoder().decode(PushResponse.self, from: Data(answer.body))
                try expectEqual(response.version, version, "the answer is in the push's format")
                try expectEqual(response.results.map(\.id), request.mutations.map(\.id), "one result per mutation")
                try expect(response.results.contains { $0.outcome == .applied }, "mutations were applied: \(response)")
                try expectEqual(
                    try JSONDecoder().decode(PushResponse.self, from: JSONEncoder().encode(response)), response,
                    "a format-\(version) push answer through JSONEncoder and back")
            }
            for version in [2, 1] {
                let query = ["v": String(version), "client": "a"]
                let pull = try await world.host.send(
                    SyncWire.Request(method: "GET", path: SyncWire.pullPath, query: query, headers: auth))
                try expectEqual(pull.status, 200, "a format-\(version) pull")
                let changes = try JSONDecoder().decode(PullResponse.self, from: Data(pull.body))
                try expectEqual(changes.version, version)
                try expect(!changes.changes.isEmpty, "the pushed records come back in format \(version)")
                try expectEqual(
                    try JSONDecoder().decode(PullResponse.self, from: JSONEncoder().encode(changes)), changes,
                    "a format-\(version) pull answer through JSONEncoder and back")
                let snapshot = try await world.host.send(
                    SyncWire.Request(
                        method: "GET", path: SyncWire.snapshotPath, query: query.merging(["limit": "4"]) { $1 },
                        headers: auth))
                try expectEqual(snapshot.status, 200, "a format-\(version) snapshot page")
                let page = try JSONDecoder().decode(SnapshotResponse.self, from: Data(snapshot.body))
                try expectEqual(page.version, version)
                try expectEqual(
                    try JSONDecoder().decode(SnapshotResponse.self, from: JSONEncoder().encode(page)), page,
                    "a format-\(version) snapshot page through JSONEncoder and back")
            }
        }
    ]
}
