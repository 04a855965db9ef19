import StrataStorage

/// Where a PostgreSQL store lives: `postgres://user[:password]@host[:port]/database[?schema=NAME]`.
///
/// Each store is one PostgreSQL schema (`strata` unless `schema=` names another), so several
/// stores share one database. Percent-escapes in the user, password and names are decoded.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    /// The user to connect as.
    public var user: String
    /// The password, if the server asks for one.
    public var password: String?
    /// The server's host.
    public var host: String
    /// The server's port.
    public var port: Int
    /// The database.
    public var database: String
    /// The PostgreSQL schema (namespace) the store's tables live in.
    public var schemaName: String

    /// The longest schema name PostgreSQL keeps (`NAMEDATALEN - 1` bytes).
    static let maximumNameLength = 63

    /// A location; `schemaName` separates several stores in one database.
    public init(
        user: String, password: String? = nil, host: String = "127.0.0.1", port: Int = 5432, database: String,
        schemaName: String = "strata"
    ) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.schemaName = schemaName
    }

    /// Parses a `postgres://` (or `postgresql://`) URL; a malformed one is `StrataError.Code.unsupportedStore`.
    public init(url: String) throws {
        func bad(_ why: String) -> StrataError {
            // The password never appears in a message.
            StrataError(
                .unsupportedStore,
                "not a PostgreSQL store URL (postgres://user[:password]@host[:port]/database[?schema=NAME]): \(why)")
        }
        var rest = Substring(url)
        if let colon = rest.firstIndex(of: ":") {
            let scheme = rest[..<colon].lowercased()
            guard scheme == "postgres" || scheme == "postgresql" else { throw bad("the scheme is \(scheme)") }
            rest = rest[rest.index(after: colon)...]
        }
        guard rest.hasPrefix("//") else { throw bad("it does not start with //") }
        rest = rest.dropFirst(2)
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let slash = rest.firstIndex(of: "/") else { throw bad("it names no database") }
        let authority = rest[..<slash]
        let databaseName = try Self.decode(rest[rest.index(after: slash)...], bad)
        guard !databaseName.isEmpty else { throw bad("it names no database") }
        guard let at = authority.lastIndex(of: "@") else { throw bad("it names no user (user@host)") }
        let credentials = authority[..<at]
        var hostPort = authority[authority.index(after: at)...]
        var password: String?
        var user = credentials
        if let colon = credentials.firstIndex(of: ":") {
            user = credentials[..<colon]
            password = try Self.decode(credentials[credentials.index(after: colon)...], bad)
        }
        var port = 5432
        if let colon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]") {
            guard let number = Int(hostPort[hostPort.index(after: colon)...]), (1...65535).contains(number) else {
                throw bad("the port is not a number from 1 to 65535")
            }
            port = number
            hostPort = hostPort[..<colon]
        }
        if hostPort.hasPrefix("["), hostPort.hasSuffix("]") { hostPort = hostPort.dropFirst().dropLast() }
        guard !hostPort.isEmpty else { throw bad("it names no host") }
        var schemaName = "strata"
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try Self.decode(parts[0], bad)
            let value = parts.count > 1 ? try Self.decode(parts[1], bad) : ""
            switch key {
            case "schema": schemaName = value
            default: throw bad("unknown option \(key) (the one option is schema=NAME)")
            }
        }
        guard !schemaName.isEmpty, schemaName.utf8.count <= Self.maximumNameLength, !schemaName.contains("\u{0}") else {
            throw bad("the schema name must be 1 to \(Self.maximumNameLength) bytes")
        }
        self.init(
            user: try Self.decode(user, bad), password: password, host: String(hostPort), port: port,
            database: databaseName, schemaName: schemaName)
        guard !self.user.isEmpty else { throw bad("it names no user") }
    }

    private static func decode(_ text: Substring, _ bad: (String) -> StrataError) throws -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first < utf8.endIndex, utf8.index(after: first) < utf8.endIndex,
                    let value = UInt8(
                        String(decoding: utf8[first...utf8.index(after: first)], as: UTF8.self), radix: 16)
                else { throw bad("a percent-escape is malformed") }
                bytes.append(value)
                index = utf8.index(first, offsetBy: 2)
            } else {
                bytes.append(byte)
                index = utf8.index(after: index)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { throw bad("a percent-escape is not UTF-8") }
        return decoded
    }

    /// The URL without the password.
    public var description: String {
        "postgres://\(user)@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)?schema=\(schemaName)"
    }
}
