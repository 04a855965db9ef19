import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import StrataSync
import StrataSyncServer

/// Answers a request the HTTP parser cannot read — a head over its 80 KiB limit (a URI that long),
/// a malformed request line or header — with the documented `{"error", "message"}` body, 400,
/// and closes the connection, instead of the empty 400 the server would send. Only when no answer
/// is owed on the connection: with a pipelined request still being answered, the error goes on to
/// the server, which closes the connection after that answer, so answers never interleave.
final class ParserFailureBodies: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Requests whose heads arrived and whose answers have not ended.
    private var owed = 0
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { owed += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { owed -= 1 }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let failure = error as? HTTPParserError, owed == 0, !answered else {
            return context.fireErrorCaught(error)
        }
        answered = true
        let answer = SyncEndpoint.failure(
            400, .badRequest, "the request is not readable HTTP/1.1 (\(Self.words(failure)))")
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        fields[.contentLength] = String(answer.body.count)
        fields[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .badRequest, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(context.channel.allocator.buffer(bytes: answer.body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// What the parser found, in words (its cases are not for clients, and name no bytes).
    static func words(_ failure: HTTPParserError) -> String {
        switch failure {
        case .headerOverflow: "its head is over the server's 80 KiB limit"
        case .invalidURL: "its URI is malformed"
        case .invalidMethod: "its method is malformed"
        case .invalidVersion: "its version is malformed"
        default: "it is malformed"
        }
    }
}
