// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Foundation
import Hummingbird
import Logging
import Strata

struct StrataErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as StrataError {
            context.logger.warning("\(error)")       // the diagnostic: entity, record, property, cause
            let body = try JSONEncoder().encode(error.problemDetails)   // RFC 9457: no value, no record ID
            return Response(
                status: .init(code: error.httpStatus), headers: [.contentType: ProblemDetails.mediaType],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
