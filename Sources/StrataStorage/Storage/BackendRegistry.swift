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
/// (see ``VerifyReport``), against the given schema or, with `nil`, the schema the store holds.
/// Part of a ``BackendDescriptor``, for backends that have files.
public typealias BackendVerifier = @Sendable (StoreLocation, Schema?) async throws -> VerifyReport

/// Maps URL schemes to backends. Each backend module registers its ``BackendDescriptor`` (for
/// example `InMemoryBackend.register()`), then `Store.open("memory:", schema:)` finds it.
public final class BackendRegistry: Sendable {
    /// The registry `Store.open(_:schema:options:)` uses by default.
    public static let shared = BackendRegistry()

    private let descriptors = Mutex<[String: BackendDescriptor]>([:])

    /// An empty registry (tests use one of their own).
    public init() {}

    /// Registers (or replaces) the backend for `descriptor.scheme`.
    public func register(_ descriptor: BackendDescriptor) {
        descriptors.withLock { $0[descriptor.scheme] = descriptor }
    }

    /// The descriptor registered for `scheme`, if any.
    public func descriptor(for scheme: String) -> BackendDescriptor? {
        descriptors.withLock { $0[scheme.lowercased()] }
    }

    /// Whether the backend registered for `scheme` checks files (a ``BackendVerifier``).
    public func verifies(_ scheme: String) -> Bool { descriptor(for: scheme)?.verify != nil }

    /// The report of the files of the store at `location`, checked without opening it by the
    /// backend registered for its scheme — against `schema`, or the schema the store holds when
    /// `nil`; `nil` when that backend has no files to check.
    ///
    /// Only a `StrataError` or a report comes out, whatever the files hold: an untyped error from
    /// the backend's verify (a library's own) becomes a `corruptStore` finding of the report.
    public func verify(_ location: StoreLocation, schema: Schema? = nil) async throws -> VerifyReport? {
        guard let verify = try required(location).verify else { return nil }
        do {
            return try await verify(location, schema)
        } catch let error as StrataError {
            throw error
        } catch {
            var report = VerifyReport(location: location.description)
            report.add(StrataError(.corruptStore, underlying: error, "\(location): the files cannot be read: \(error)"))
            return report
        }
    }

    /// The schema description the store at `location` holds, or `nil` when no store is there —
    /// read by the backend's attach, which creates and changes nothing.
    public func attach(_ location: StoreLocation) async throws -> SchemaDescription? {
        try await required(location).attach(location)
    }

    /// Whether a store is at `location` (asking never creates one).
    public func exists(_ location: StoreLocation) async throws -> Bool { try await attach(location) != nil }

    /// The registered schemes, sorted.
    public var schemes: [String] { descriptors.withLock { $0.keys.sorted() } }

    package func open(_ location: StoreLocation, schema: Schema) async throws -> any StorageBackend {
        try await required(location).open(location, schema)
    }

    private func required(_ location: StoreLocation) throws -> BackendDescriptor {
        guard let descriptor = descriptor(for: location.scheme) else {
            let known = schemes.map { "\($0):" }.joined(separator: ", ")
            throw StrataError(
                .unsupportedStore,
                "no backend is registered for \(location.scheme): (registered: \(known.isEmpty ? "none" : known))")
        }
        return descriptor
    }
}
