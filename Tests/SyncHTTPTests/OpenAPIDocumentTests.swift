import Foundation
import StrataConformance
import StrataInMemory
import StrataSyncHTTPClient
import StrataSyncHTTPServer
import Synchronization
import Testing

@testable import Strata
@testable import StrataSync
@testable import StrataSyncServer

/// `openapi/strata-sync.json` against a running HTTP server: every documented route, method and
/// status is provoked over loopback HTTP, and every answer (status, required headers, body shape)
/// and every request body sent must be what the document says, in format 1 and format 2.
@Suite("the OpenAPI document matches the server")
struct OpenAPIDocumentTests {
    static let documentPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("openapi/strata-sync.json").path

    struct Exchange: Sendable {
        var request: SyncWire.Request
        var response: SyncWire.Response
    }

    /// A server on a fresh in-memory store of the travel schema, reached over loopback HTTP.
    final class Served: Sendable {
        let server: SyncServer
        let http: SyncHTTPServer
        let port: Int
        let backend: FaultInjectingBackend
        let log = Mutex<[Exchange]>([])

        static func start(limits: SyncLimits = SyncLimits(rate: nil)) async throws -> Served {
            let backend = FaultInjectingBackend(wrapping: InMemoryBackend(schema: try TravelDomain.schema()))
            let server = SyncServer(store: Store(backend: backend))
            let tokens = StaticTokenAuthenticator(["token-a": SyncIdentity("alice"), "token-b": SyncIdentity("bob")])
            let http = SyncHTTPServer(endpoint: SyncEndpoint(server: server, authenticator: tokens, limits: limits))
            let port = try await http.start(host: "127.0.0.1", port: 0)
            return Served(server: server, http: http, port: port, backend: backend)
        }

        init(server: SyncServer, http: SyncHTTPServer, port: Int, backend: FaultInjectingBackend) {
            (self.server, self.http, self.port, self.backend) = (server, http, port, backend)
        }

        @discardableResult
        func send(
            _ method: String, _ path: String, token: String? = "token-a", query: [String: String] = [:],
            body: [UInt8] = []
        ) async throws -> SyncWire.Response {
            var headers = ["content-type": "application/json"]
            if let token { headers["authorization"] = "Bearer \(token)" }
            let request = SyncWire.Request(method: method, path: path, query: query, headers: headers, body: body)
            let response = try await HTTPSyncRemote(baseURL: "http://127.0.0.1:\(port)", tokens: FixedToken("unused"))
                .send(request)
            log.withLock { $0.append(Exchange(request: request, response: response)) }
            return response
        }
    }

    @Test func everyRouteStatusAndBodyIsDocumentedAndEveryDocumentedOneHappens() async throws {
        let document = try JSONValue.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Self.documentPath))))
        var exchanges: [Exchange] = []
        let main = try await Served.start(limits: SyncLimits(maximumBodyBytes: 256 << 10, rate: nil))
        try await Self.provokeEveryAnswer(main)
        exchanges += main.log.withLock { $0 }
        await main.http.stop()
        let limited = try await Served.start(limits: SyncLimits(rate: SyncRateLimit(perSecond: 0.001, burst: 1)))
        try await Self.provokeRateLimits(limited)
        exchanges += limited.log.withLock { $0 }
        await limited.http.stop()
        let failing = try await Served.start()
        try await Self.provokeFailures(failing)
        exchanges += failing.log.withLock { $0 }
        await failing.http.stop()

        let check = JSONSchemaCheck(document: document)
        var seen: Set<String> = []
        for exchange in exchanges {
            let (method, path, status) = (
                exchange.request.method.lowercased(), Self.template(exchange.request.path), exchange.response.status
            )
            seen.insert("\(method) \(path) \(status)")
            let operation = try #require(document["paths"]?[path]?[method], "\(method) \(path) is documented")
            let answer = try #require(operation["responses"]?[String(status)], "\(method) \(path) may answer \(status)")
            if case .object(let headers)? = answer["headers"] {
                for (name, _) in headers {
                    #expect(
                        exchange.response.headers[name.lowercased()] != nil, "\(method) \(path) \(status) sends \(name)"
                    )
                }
            }
            if let schema = answer["content"]?["application/json"]?["schema"] {
                let body = try JSONValue.parse(exchange.response.body)
                let problems = check.problems(body, schema)
                let shown = String(decoding: exchange.response.body.prefix(300), as: UTF8.self)
                #expect(problems.isEmpty, "\(method) \(path) \(status): \(problems.prefix(3)) in \(shown)")
            }
            if status == 200, let schema = operation["requestBody"]?["content"]?["application/json"]?["schema"] {
                let problems = check.problems(try JSONValue.parse(exchange.request.body), schema)
                #expect(problems.isEmpty, "the request body of \(method) \(path): \(problems.prefix(3))")
            }
            if status == 200, case .array(let parameters)? = operation["parameters"] {
                let names = Set(parameters.compactMap { $0["name"]?.text })
                #expect(Set(exchange.request.query.keys).isSubset(of: names), "\(path)'s query is documented")
            }
        }
        guard case .object(let paths)? = document["paths"] else { throw StrataError(.invalidQuery, "no paths") }
        for (path, operations) in paths {
            guard case .object(let methods) = operations else { continue }
            for (method, operation) in methods {
                guard case .object(let responses)? = operation["responses"] else { continue }
                for status in responses.keys {
                    #expect(seen.contains("\(method) \(path) \(status)"), "\(method) \(path) \(status) was provoked")
                }
            }
        }
        #expect(
            Set(paths.keys) == [SyncWire.pushPath, SyncWire.pullPath, SyncWire.snapshotPath, Self.filesTemplate],
            "the routes")
    }

    static let filesTemplate = SyncWire.filesPath + "{digest}"

    /// The documented path a request's path is an instance of.
    static func template(_ path: String) -> String {
        path.hasPrefix(SyncWire.filesPath) ? filesTemplate : path
    }
}
