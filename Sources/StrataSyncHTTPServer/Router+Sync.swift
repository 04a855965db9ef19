import HTTPTypes
import Hummingbird
import NIOCore
import Strata
import StrataSync
import StrataSyncServer

extension Router {
    /// Mounts the sync routes of `endpoint` on this router: `POST /strata/v1/push`,
    /// `GET /strata/v1/pull`, `GET /strata/v1/snapshot`, `PUT` and `GET /strata/v1/files/{digest}`
    /// (see `SyncWire`). An app adds them to
    /// its own router beside its other routes and middleware:
    ///
    /// ```swift
    /// let router = Router()
    /// router.addSyncRoutes(SyncEndpoint(server: SyncServer(store: store, access: access),
    ///                                   authenticator: MyAuthenticator()))
    /// let app = Application(router: router, configuration: .init(address: .hostname("0.0.0.0", port: 8080)))
    /// try await app.runService()
    /// ```
    ///
    /// Bodies are read up to the endpoint's ``SyncLimits/maximumBodyBytes`` (413 beyond); nothing
    /// of a body or a token is logged.
    @discardableResult
    public func addSyncRoutes(_ endpoint: SyncEndpoint) -> Self {
        let handler: @Sendable (Request, Context) async throws -> Response = { request, _ in
            try await SyncRoutes.respond(to: request, endpoint: endpoint)
        }
        // Every method reaches the endpoint, so a wrong one is its 405 (with `Allow`), exactly as
        // over the in-process transport, not the router's 404.
        for path in [SyncWire.pushPath, SyncWire.pullPath, SyncWire.snapshotPath, SyncWire.filesPath + ":digest"] {
            for method in SyncRoutes.methods { on(RouterPath(path), method: method, use: handler) }
        }
        return self
    }
}

/// Moves requests and answers between Hummingbird and a ``SyncEndpoint``.
enum SyncRoutes {
    /// The methods the routes answer: the right one for each route, and a 405 for the others.
    static let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete, .head, .options]

    static func respond(to request: Request, endpoint: SyncEndpoint) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            // One byte over the limit is enough to know it is over.
            body = try await request.collectBody(upTo: endpoint.limits.maximumBodyBytes)
        } catch is NIOTooManyBytesError {
            return response(
                SyncEndpoint.failure(
                    413, .payloadTooLarge, "the body exceeds \(endpoint.limits.maximumBodyBytes) bytes"))
        }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let wire = SyncWire.Request(
            method: request.method.rawValue, path: request.uri.path, query: SyncWire.parseQuery(request.uri.string),
            headers: headers,
            body: Array(buffer: body))
        return response(await endpoint.handle(wire))
    }

    static func response(_ answer: SyncWire.Response) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        return Response(
            status: HTTPResponse.Status(code: answer.status), headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body)))
    }
}
