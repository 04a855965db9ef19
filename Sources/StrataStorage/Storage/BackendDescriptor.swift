/// What a backend registers for its URL scheme: how to **attach** to a location (read what it
/// holds without changing anything) and how to **open** it with a schema, plus, for a backend
/// with files, how to check them.
///
/// Opening is in two phases, and the engine decides between them once:
/// 1. `attach` reports the schema description the store at a location holds — `nil` when no store
///    is there — reading only: no file, table or directory is created, no lock is kept;
/// 2. the engine compares that description with the app's schema: none creates the store, equal
///    opens it, a different one is migrated (with a plan) or refused naming the difference. Only
///    then is `open` called, with the schema the store holds or is about to hold.
///
/// The description is the one the engine records under `SchemaDescription.metadataKey` through
/// the backend's metadata; a backend only has to give back what it stored. Attach must not crash
/// on a damaged store: report it as a typed error (`StrataError.Code.corruptStore`,
/// `.notAStore`, `.incompatibleStore` for another on-disk format).
public struct BackendDescriptor: Sendable {
    /// Reads the schema description of the store at a location; `nil` when there is none.
    public typealias Attach = @Sendable (StoreLocation) async throws -> SchemaDescription?

    /// The URL scheme (`sqlite`, `memory`, …), lowercased.
    public let scheme: String
    /// Reads what the store at a location holds, changing nothing.
    public let attach: Attach
    /// Checks a store's files without opening it; `nil` for a backend without files.
    public let verify: BackendVerifier?
    /// Opens (creating when nothing is there) the store at a location with a schema.
    public let open: BackendOpener

    /// A descriptor; `verify` is for backends whose stores are files.
    public init(scheme: String, attach: @escaping Attach, verify: BackendVerifier? = nil, open: @escaping BackendOpener)
    {
        self.scheme = scheme.lowercased()
        self.attach = attach
        self.verify = verify
        self.open = open
    }
}
