import Foundation
import Strata

/// Supplies the bearer token a client sends; `refresh()` is called once after a 401.
public protocol SyncTokenProvider: Sendable {
    /// The token to send now.
    func token() async throws -> String
    /// A new token after the server refused the current one; `nil` when there is none (the
    /// engine then stops with ``SyncStatus/authentication`` set).
    func refresh() async throws -> String?
}

/// A token that never changes.
public struct FixedToken: SyncTokenProvider {
    /// The token.
    public let value: String
    /// A provider that always answers `value`.
    public init(_ value: String) { self.value = value }
    public func token() async throws -> String { value }
    public func refresh() async throws -> String? { nil }
}
