import Foundation
import Strata

/// Who is calling a ``SyncServer``: what an ``SyncAuthenticator`` returns for a credential.
/// ``SyncAccess`` rules read it to scope what the caller may read and write.
public struct SyncIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A stable name of the user, device or service (a user ID, never a token).
    public var id: String
    /// Anything else the rules need (a tenant, a role), as the authenticator found it.
    public var attributes: [String: String]

    /// An identity with a stable ID and the attributes rules read.
    public init(_ id: String, attributes: [String: String] = [:]) {
        self.id = id
        self.attributes = attributes
    }

    public var description: String { id }
}

/// Turns a bearer token into an identity. Return `nil` for a token that is unknown or expired:
/// the request is answered 401 and the client refreshes its token once.
public protocol SyncAuthenticator: Sendable {
    func identity(forBearer token: String) async throws -> SyncIdentity?
}

/// A fixed table of tokens, for `strata serve --tokens FILE`, tests and small deployments.
/// Tokens are compared in constant time.
public struct StaticTokenAuthenticator: SyncAuthenticator {
    private let tokens: [(token: [UInt8], identity: SyncIdentity)]

    /// A table of tokens and the identities they stand for.
    public init(_ tokens: [String: SyncIdentity]) {
        self.tokens = tokens.map { (Array($0.key.utf8), $0.value) }
    }

    /// Reads a tokens file: one `TOKEN IDENTITY` pair per line; `#` starts a comment. A malformed
    /// line is `StrataError.Code.invalidQuery` naming the line (never the token).
    public init(file: String) throws {
        guard let data = FileManager.default.contents(atPath: file), let text = String(data: data, encoding: .utf8)
        else {
            throw StrataError(.notFound, "the tokens file \(file) cannot be read")
        }
        var table: [String: SyncIdentity] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: \.isWhitespace)
            if words.isEmpty { continue }
            guard words.count == 2 else {
                throw StrataError(.invalidQuery, "\(file):\(number + 1): expected `TOKEN IDENTITY`")
            }
            table[String(words[0])] = SyncIdentity(String(words[1]))
        }
        self.init(table)
    }

    public func identity(forBearer token: String) async throws -> SyncIdentity? {
        let given = Array(token.utf8)
        var found: SyncIdentity?
        for entry in tokens where Self.equalInConstantTime(entry.token, given) { found = entry.identity }
        return found
    }

    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
