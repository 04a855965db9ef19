import Synchronization

/// Where a store lives: a URL such as `memory:`, `memory:shared`, `sqlite:./app.sqlite`.
public struct StoreLocation: Sendable, Hashable, CustomStringConvertible {
    /// The scheme before the first colon (`memory`, `sqlite`, …).
    public var scheme: String
    /// Everything after the first colon (a name or a path; may be empty).
    public var path: String

    /// Parses `scheme:path`. A URL without a colon is ``StrataError/Code/unsupportedStore``.
    public init(_ url: String) throws {
        guard let colon = url.firstIndex(of: ":"), colon != url.startIndex else {
            throw StrataError(
                .unsupportedStore, "store URL \"\(url)\" has no scheme (expected e.g. memory: or sqlite:PATH)")
        }
        scheme = url[..<colon].lowercased()
        path = String(url[url.index(after: colon)...])
    }

    public var description: String { "\(scheme):\(path)" }
}

/// Opens a backend for a location. Registered per URL scheme.
public typealias BackendOpener = @Sendable (StoreLocation, Schema) async throws -> any StorageBackend

/// Maps URL schemes to backends. Each backend module registers its scheme (for example
/// `InMemoryBackend.register()`), then `Store.open("memory:", schema:)` finds it.
public final class BackendRegistry: Sendable {
    /// The registry `Store.open(_:schema:registry:sync:instrumentation:)` uses by default.
    public static let shared = BackendRegistry()

    private let openers = Mutex<[String: BackendOpener]>([:])

    /// An empty registry (tests use one of their own).
    public init() {}

    /// Registers (or replaces) the opener for `scheme`.
    public func register(scheme: String, opener: @escaping BackendOpener) {
        openers.withLock { $0[scheme.lowercased()] = opener }
    }

    /// The registered schemes, sorted.
    public var schemes: [String] { openers.withLock { $0.keys.sorted() } }

    package func open(_ location: StoreLocation, schema: Schema) async throws -> any StorageBackend {
        guard let opener = openers.withLock({ $0[location.scheme] }) else {
            let known = schemes.map { "\($0):" }.joined(separator: ", ")
            throw StrataError(
                .unsupportedStore,
                "no backend is registered for \(location.scheme): (registered: \(known.isEmpty ? "none" : known))")
        }
        return try await opener(location, schema)
    }
}
