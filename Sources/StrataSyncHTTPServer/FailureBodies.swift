import HTTPTypes
import Hummingbird
import StrataSync
import StrataSyncServer

/// Answers what fails before or outside the sync routes — an unknown path, an error Hummingbird
/// raises — with the documented JSON body (`{"error", "message"}`) instead of an empty one.
/// ``SyncHTTPServer`` installs it on its own router; an app mounting the routes on its router
/// keeps its own error handling.
struct FailureBodies<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError {
            let code = error.status.code
            let kind: SyncTransportError.Kind = code == 404 || code < 500 ? .badRequest : .serverError
            let message = code == 404 ? "no such route" : error.status.reasonPhrase
            return SyncRoutes.response(SyncEndpoint.failure(code, kind, message))
        } catch {
            return SyncRoutes.response(SyncEndpoint.failure(500, .serverError, "the server failed"))
        }
    }
}
