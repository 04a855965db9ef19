import HTTPTypes
import Hummingbird
import Strata
import StrataSync
import StrataConformance
import StrataSyncHTTPClient
import StrataSyncHTTPServer
import StrataSyncServer

/// The Transport checks over real HTTP: each check's endpoint served by Hummingbird on
/// 127.0.0.1 with an ephemeral port, clients on AsyncHTTPClient, a middleware that loses
/// acknowledgements on demand. The server is started and stopped by the check itself.
struct HTTPHarness: SyncTransportHarness {
    var name: String { "HTTP" }

    func host(_ endpoint: SyncEndpoint) async throws -> any SyncTransportHost {
        let server = SyncHTTPServer(endpoint: endpoint)
        let loss = AcknowledgementLoss()
        let port = try await server.start(host: "127.0.0.1", port: 0) { router in
            router.add(middleware: LoseAcknowledgements(loss: loss))
        }
        return Host(server: server, port: port, loss: loss)
    }

    private struct Host: SyncTransportHost {
        let server: SyncHTTPServer
        let port: Int
        let loss: AcknowledgementLoss

        func remote(tokens: any SyncTokenProvider) -> any SyncRemote {
            HTTPSyncRemote(baseURL: "http://127.0.0.1:\(port)", tokens: tokens, timeout: .seconds(60))
        }

        func loseAcknowledgements(_ count: Int) { loss.add(count) }
        func send(_ request: SyncWire.Request) async throws -> SyncWire.Response {
            try await HTTPSyncRemote(baseURL: "http://127.0.0.1:\(port)", tokens: FixedToken("unused")).send(request)
        }
        func shutdown() async { await server.stop() }
    }
}

/// Lets a push through to the server, then replaces its answer with a 502, as a proxy would
/// whose upstream connection dropped after the server applied the batch.
struct LoseAcknowledgements<Context: RequestContext>: RouterMiddleware {
    let loss: AcknowledgementLoss

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let response = try await next(request, context)
        guard request.uri.path == SyncWire.pushPath, loss.take() else { return response }
        let lost = AcknowledgementLoss.lostAnswer
        return Response(
            status: HTTPResponse.Status(code: lost.status), body: ResponseBody(byteBuffer: ByteBuffer(bytes: lost.body))
        )
    }
}
