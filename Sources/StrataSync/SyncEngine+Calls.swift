import Foundation
import Strata

/// Calling the remote: waits the server asks for, and the authentication state.
extension SyncEngine {
    /// Runs one remote call. A server's request to wait (`429`, `408` with `Retry-After`) is
    /// honoured through ``Options/sleep`` and the call repeated, at most
    /// ``Options/maximumServerWaits`` times, without counting as a failure. A refusal of the
    /// credentials or of the client ID sets ``SyncStatus/authentication``; an accepted call
    /// clears it.
    func call<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        var waits = 0
        while true {
            do {
                let value = try await body()
                if status.authentication != .accepted {
                    status.authentication = .accepted
                    publish()
                }
                return value
            } catch let error as SyncTransportError {
                switch error.kind {
                case .rateLimited, .requestTimeout:
                    guard waits < options.maximumServerWaits else { throw error }
                    waits += 1
                    try await options.sleep(error.retryAfter ?? options.retry.initialDelay)
                case .unauthorized:
                    setAuthentication(.unauthorized)
                    throw error
                case .forbidden:
                    setAuthentication(.forbidden)
                    throw error
                default:
                    throw error
                }
            } catch let error as StrataError where error.code == .permissionDenied {
                setAuthentication(.forbidden)
                throw error
            }
        }
    }

    private func setAuthentication(_ state: SyncAuthentication) {
        status.authentication = state
        publish()
    }

    /// Whether an error says the client must reset from a snapshot.
    static func requiresReset(_ error: any Error) -> Bool {
        if let error = error as? SyncTransportError { return error.kind == .resetRequired }
        if let error = error as? StrataError { return error.code == .resetRequired }
        return false
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? SyncTransportError { return "\(error.kind.rawValue): \(error.description)" }
        return String(describing: error)
    }
}
