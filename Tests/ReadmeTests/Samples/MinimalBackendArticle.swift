// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// A DocC catalog's code sample, verbatim (ReadmeSampleTests checks every ```swift block of every
// article appears in one of these files). Edit both together.
import StrataStorage
import Synchronization

/// Everything the store holds. A value: a read copies it (cheaply: the dictionaries are
/// copy-on-write), so it keeps its snapshot while writers commit.
struct DictionaryState: Sendable {
    var records: [String: [RecordID: Record]] = [:]
    var links: [LinkKey: [RecordID]] = [:]
    var metadata: [String: [UInt8]] = [:]
}

/// A store's state and its writers' turns, kept by name for the process (`dictionary:NAME`).
final class DictionaryStore: Sendable {
    let state = Mutex(DictionaryState())
    let writers = SerialTurns()  // one write transaction at a time, in arrival order

    private static let named = Mutex<[String: DictionaryStore]>([:])

    /// The store called `name`, created empty the first time.
    static func named(_ name: String) -> DictionaryStore {
        named.withLock { stores in
            if let store = stores[name] { return store }
            let store = DictionaryStore()
            stores[name] = store
            return store
        }
    }

    /// The store called `name`, if there is one (asking creates nothing).
    static func existing(_ name: String) -> DictionaryStore? { named.withLock { $0[name] } }
}

/// A backend that keeps its records in dictionaries: `.none` capabilities (the engine filters,
/// sorts and pages), lookups by scanning. A real backend indexes referrers and link owners.
final class DictionaryBackend: StorageBackend {
    let schema: Schema
    let capabilities = FetchCapabilities.none
    private let store: DictionaryStore
    private let closed = Atomic(false)

    init(schema: Schema, store: DictionaryStore = DictionaryStore()) {
        self.schema = schema
        self.store = store
    }

    /// Attaching reads the schema description the engine recorded in the store's metadata (none:
    /// no store there yet); opening creates the store the first time.
    static func register(in registry: BackendRegistry = .shared) {
        registry.register(
            BackendDescriptor(scheme: "dictionary") { location in
                let store = DictionaryStore.existing(location.path)
                let bytes = store?.state.withLock { $0.metadata[SchemaDescription.metadataKey] }
                return try bytes.map { try SchemaDescription.decode($0, path: location.description) }
            } open: { location, schema in
                DictionaryBackend(schema: schema, store: .named(location.path))
            })
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (any StorageReadTransaction) throws -> T) async throws -> T {
        try checkOpen()
        return try body(DictionaryTransaction(schema: schema, state: store.state.withLock { $0 }))
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any StorageWriteTransaction) throws -> T) async throws -> T {
        try await store.writers.run {
            try checkOpen()
            let transaction = DictionaryTransaction(schema: schema, state: store.state.withLock { $0 })
            let result = try body(transaction)  // a throw leaves the state untouched: a rollback
            store.state.withLock { $0 = transaction.state }  // the commit
            return result
        }
    }

    func close() async throws { closed.store(true, ordering: .releasing) }

    private func checkOpen() throws {
        if closed.load(ordering: .acquiring) { throw StrataError(.storeClosed, "the store has been closed") }
    }
}

/// A read or write transaction over its own copy of the state.
final class DictionaryTransaction: StorageWriteTransaction {
    let schema: Schema
    private(set) var state: DictionaryState

    init(schema: Schema, state: DictionaryState) {
        self.schema = schema
        self.state = state
    }

    func record(_ entity: String, id: RecordID) throws -> Record? { state.records[entity]?[id] }

    func fetch(_ plan: FetchPlan) throws -> [Record] {
        // With `.none` the plan names only its entity; results are in ID order.
        (state.records[plan.entity] ?? [:]).values.sorted { $0.id < $1.id }
    }

    func count(_ plan: FetchPlan) throws -> Int { state.records[plan.entity]?.count ?? 0 }

    func referrers(_ entity: String, property: String, to target: RecordID) throws -> [RecordID] {
        try fetch(FetchPlan(entity: entity)).filter { $0[property] == target.value }.map(\.id)
    }

    func links(_ entity: String, relationship: String, from owner: RecordID) throws -> [RecordID] {
        state.links[.init(entity: entity, relationship: relationship, owner: owner)] ?? []
    }

    func linkOwners(_ entity: String, relationship: String, to target: RecordID) throws -> [RecordID] {
        let owners = state.links.filter { list in
            list.key.entity == entity && list.key.relationship == relationship && list.value.contains(target)
        }
        return owners.map(\.key.owner).sorted()
    }

    func metadata(_ key: String) throws -> [UInt8]? { state.metadata[key] }

    func metadata(prefix: String, after: String?, limit: Int?) throws -> [(key: String, value: [UInt8])] {
        let keys = state.metadata.keys.filter { key in
            key.hasPrefix(prefix) && after.map { key > $0 } ?? true
        }.sorted()
        return keys.prefix(limit ?? keys.count).map { ($0, state.metadata[$0] ?? []) }
    }

    func put(_ record: Record) throws { state.records[record.entity, default: [:]][record.id] = record }

    func delete(_ entity: String, id: RecordID) throws {
        state.records[entity]?[id] = nil
        state.links = state.links.filter { !($0.key.entity == entity && $0.key.owner == id) }  // its own lists
    }

    func setLinks(_ entity: String, relationship: String, from owner: RecordID, to targets: [RecordID]) throws {
        state.links[.init(entity: entity, relationship: relationship, owner: owner)] = targets.isEmpty ? nil : targets
    }

    func setMetadata(_ key: String, _ value: [UInt8]?) throws { state.metadata[key] = value }
}
