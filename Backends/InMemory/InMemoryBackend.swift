import Foundation
import StrataStorage
import Synchronization

/// The reference backend: the whole store in process memory.
///
/// - `memory:` opens a new, private store; `memory:NAME` opens the store of that name, shared by
///   every open of the same name in the process (it lives until the process ends), so reopening
///   it finds the data again.
/// - Readers work on a copy-on-write snapshot and never block on each other. The single writer
///   mutates in place under the store's lock, logging undo steps so a failed save rolls back.
/// - `FetchCapabilities` are configurable so tests can prove the engine's own evaluation gives
///   the same results as the backend's (`capabilities: .none`).
public final class InMemoryBackend: StorageBackend {
    public let schema: Schema
    public let capabilities: FetchCapabilities
    let database: Database
    private let isClosed = Atomic<Bool>(false)

    /// The storage a named store's opens share, with the schema it was created for.
    final class Database: Sendable {
        let state: Mutex<InMemoryState>
        /// The shape the storage holds (changed only by a migration, under `state`'s lock).
        private let shape: Mutex<SchemaDescription>
        var description: SchemaDescription { shape.withLock { $0 } }
        func setDescription(_ description: SchemaDescription) { shape.withLock { $0 = description } }
        /// Names this storage for observers: handles onto it wake each other's at commit.
        let identity = "memory:" + UUID().uuidString
        /// How many migrations changed the shape: a handle from before one refuses to work.
        let migrations = Atomic<Int>(0)
        init(schema: Schema) {
            state = Mutex(InMemoryState(schema: schema))
            shape = Mutex(SchemaDescription(schema))
        }
    }

    private static let named = Mutex<[String: Database]>([:])

    /// A new private store.
    public convenience init(schema: Schema, capabilities: FetchCapabilities = .all) {
        self.init(schema: schema, capabilities: capabilities, database: Database(schema: schema))
    }

    /// Every handle onto the same storage (a named store, a reopened one) shares it.
    public var sharedIdentity: String? { database.identity }

    init(schema: Schema, capabilities: FetchCapabilities, database: Database) {
        self.schema = schema
        self.capabilities = capabilities
        self.database = database
        self.migrationsAtOpen = database.migrations.load(ordering: .acquiring)
    }

    private let migrationsAtOpen: Int

    /// Opens (or creates) the process-wide store called `name`. Opening it again with a schema of
    /// another shape is `StrataError.Code.incompatibleStore`.
    public static func named(_ name: String, schema: Schema, capabilities: FetchCapabilities = .all) throws
        -> InMemoryBackend
    {
        let database = named.withLock { stores in
            if let existing = stores[name] { return existing }
            let created = Database(schema: schema)
            stores[name] = created
            return created
        }
        let stored = database.description
        guard stored.sameShape(as: SchemaDescription(schema)) else {
            throw StoredSchema.mismatch(stored: stored, current: SchemaDescription(schema), path: "memory:\(name)")
        }
        return InMemoryBackend(schema: schema, capabilities: capabilities, database: database)
    }

    /// A new, open handle on the same storage (what reopening a closed store gives back).
    public func reopened() -> InMemoryBackend {
        InMemoryBackend(schema: schema, capabilities: capabilities, database: database)
    }

    /// A new, open handle on the same storage for `schema`, which must have the shape the storage
    /// was created with (`StrataError.Code.incompatibleStore` naming every difference otherwise).
    public func reopened(schema: Schema) throws -> InMemoryBackend {
        let stored = database.description
        guard stored.sameShape(as: SchemaDescription(schema)) else {
            throw StoredSchema.mismatch(stored: stored, current: SchemaDescription(schema), path: "this memory store")
        }
        return InMemoryBackend(schema: schema, capabilities: capabilities, database: database)
    }

    /// Forgets a named store (its data is dropped once no open handle uses it).
    public static func dropNamed(_ name: String) {
        _ = named.withLock { $0.removeValue(forKey: name) }
    }

    /// The shape the process-wide store called `name` holds, or `nil` when there is none (asking
    /// creates nothing).
    public static func storedDescription(named name: String) -> SchemaDescription? {
        named.withLock { $0[name] }?.description
    }

    /// Registers the `memory:` scheme: `memory:` is a new private store at every open (nothing to
    /// attach to), `memory:NAME` the process-wide store of that name.
    public static func register(in registry: BackendRegistry = .shared) {
        registry.register(
            BackendDescriptor(scheme: "memory") { location in
                location.path.isEmpty ? nil : storedDescription(named: location.path)
            } open: { location, schema in
                location.path.isEmpty
                    ? InMemoryBackend(schema: schema) : try InMemoryBackend.named(location.path, schema: schema)
            })
    }

    var isClosedNow: Bool { isClosed.load(ordering: .acquiring) }

    func checkOpen() throws {
        if isClosed.load(ordering: .acquiring) {
            throw StrataError(.storeClosed, "the store has been closed")
        }
    }

    public func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws
        -> T
    {
        try checkOpen()
        try checkShape()
        let snapshot = database.state.withLock { $0 }
        return try body(InMemoryReadTransaction(schema: schema, state: snapshot, capabilities: capabilities))
    }

    public func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws
        -> T
    {
        try checkOpen()
        try checkShape()
        let schema = schema
        let capabilities = capabilities
        return try database.state.withLock { state throws -> T in
            // Move the state into the transaction so it is uniquely referenced and mutates in place.
            let transaction = InMemoryWriteTransaction(schema: schema, state: state, capabilities: capabilities)
            state = InMemoryState()
            do {
                let result = try body(transaction)
                state = transaction.takeState()
                return result
            } catch {
                transaction.rollback()
                state = transaction.takeState()
                throw error
            }
        }
    }

    public func close() async throws {
        isClosed.store(true, ordering: .releasing)
    }

    /// A handle opened before a migration changed the storage's shape holds the old layout.
    func checkShape() throws {
        guard database.migrations.load(ordering: .acquiring) == migrationsAtOpen else {
            throw StrataError(
                .incompatibleStore,
                "this memory store was migrated to another schema after this handle was opened; open it again")
        }
    }
}
