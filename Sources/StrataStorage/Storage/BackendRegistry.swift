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

/// Checks the files of the store at a location without opening it and without changing anything
/// (see ``VerifyReport``). Registered per URL scheme, beside the opener, by backends that have files.
public typealias BackendVerifier = @Sendable (StoreLocation, Schema) async throws -> VerifyReport

/// Maps URL schemes to backends. Each backend module registers its scheme (for example
/// `InMemoryBackend.register()`), then `Store.open("memory:", schema:)` finds it.
public final class BackendRegistry: Sendable {
    /// The registry `Store.open(_:schema:registry:sync:instrumentation:)` uses by default.
    public static let shared = BackendRegistry()

    private let openers = Mutex<[String: BackendOpener]>([:])
    private let verifiers = Mutex<[String: BackendVerifier]>([:])

    /// An empty registry (tests use one of their own).
    public init() {}

    /// Registers (or replaces) the opener for `scheme`, and the routine that checks a store's files
    /// without opening it, for a backend that has files (`strata verify` runs it).
    public func register(scheme: String, verifier: BackendVerifier? = nil, opener: @escaping BackendOpener) {
        openers.withLock { $0[scheme.lowercased()] = opener }
        verifiers.withLock { $0[scheme.lowercased()] = verifier }
    }

    /// Whether the backend registered for `scheme` checks files (a ``BackendVerifier``).
    public func verifies(_ scheme: String) -> Bool { verifiers.withLock { $0[scheme.lowercased()] } != nil }

    /// The report of the files of the store at `location`, checked without opening it by the
    /// backend registered for its scheme; `nil` when that backend has no files to check.
    public func verify(_ location: StoreLocation, schema: Schema) async throws -> VerifyReport? {
        guard let verifier = verifiers.withLock({ $0[location.scheme] }) else { return nil }
        return try await verifier(location, schema)
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
