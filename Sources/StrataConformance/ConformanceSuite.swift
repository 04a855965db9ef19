import Strata
import StrataSyncServer

/// The conformance suite: every behaviour the contract promises, as checks a backend runs from its
/// own test target.
///
/// ```swift
/// let suite = ConformanceSuite(backend: .init(name: "MyBackend", features: [.reopen]) { schema in
///     try await Store.open("mine:\(freshPath())", schema: schema)
/// } reopen: { store in
///     try await store.close()
///     guard let location = store.location else { throw StrataError(.unsupportedStore, "no location") }
///     return try await Store.open(location.description, schema: store.schema)
/// })
///
/// @Test(arguments: ConformanceSuite.checks)
/// func conformance(_ check: ConformanceCheck) async throws {
///     try await suite.run(check)   // see ConformanceTests for reporting skips and failures
/// }
/// ```
public struct ConformanceSuite: Sendable {
    /// The backend the suite runs against.
    public let backend: BackendUnderTest
    /// How the sync checks (OfflineFirst, Transport) reach their server; `nil` runs them in
    /// process (Transport through `EndpointTransport`).
    public let transport: (any SyncTransportHarness)?

    /// A suite over `backend`; `transport` runs the Transport checks over another transport than the in-process one.
    public init(backend: BackendUnderTest, transport: (any SyncTransportHarness)? = nil) {
        self.backend = backend
        self.transport = transport
    }

    /// The checks of some categories (the sync categories, to run them over another transport).
    public static func checks(in categories: Set<ConformanceCategory>) -> [ConformanceCheck] {
        checks.filter { categories.contains($0.category) }
    }

    /// Every check, grouped by category in a stable order.
    public static var checks: [ConformanceCheck] {
        CRUDChecks.all + QueryChecks.all + ValueChecks.all + RelationshipChecks.all + DeleteRuleChecks.all
            + ValidationChecks.all
            + AtomicityChecks.all + HistoryChecks.all + MergePolicyChecks.all + OfflineFirstChecks.all + FaultChecks.all
            + DifferentialChecks.all + StorageChecks.all + ObservationChecks.all + MigrationChecks.all
            + MigrationChecks.steps + MigrationChecks.plans + MigrationChecks.syncs
            + MigrationChecks.shadowCopies + MigrationChecks.holders + TransportChecks.all + ToolChecks.all
            + AggregateChecks.all
    }

    /// Runs one check on a fresh store. Throws ``ConformanceFailure`` (or the unexpected error)
    /// when it fails; returns ``ConformanceOutcome/skipped(_:)`` when the backend lacks a feature
    /// the check needs.
    @discardableResult
    public func run(_ check: ConformanceCheck) async throws -> ConformanceOutcome {
        let missing = check.requirements.subtracting(backend.features)
        if !missing.isEmpty {
            let names = missing.map(\.rawValue).sorted().joined(separator: ", ")
            return .skipped("\(backend.name) does not declare \(names)")
        }
        let context = ConformanceContext(backend: backend, transport: transport)
        do {
            try await check.body(context)
        } catch {
            await context.closeAll()
            throw error
        }
        await context.closeAll()
        return .passed
    }
}

/// The backend a suite runs against: how to open a fresh, empty store, and (for persistent
/// backends) how to close and reopen one.
public struct BackendUnderTest: Sendable {
    /// The backend's name in reports.
    public var name: String
    /// The optional features the backend supports (which checks run).
    public var features: Set<BackendFeature>
    /// Opens a new, empty store with `schema`.
    public var makeStore: @Sendable (Schema) async throws -> Store
    /// Closes `store` and opens the same store again.
    public var reopen: (@Sendable (Store) async throws -> Store)?
    /// Opens what `store` would leave if its process stopped abruptly now — no clean close, so
    /// journals and write-ahead logs are replayed — for example by copying its files while it is
    /// open and opening the copy. `store` itself stays open.
    public var reopenAfterAbruptStop: (@Sendable (Store) async throws -> Store)?
    /// Removes what a check's store left behind (files), after the store is closed.
    public var dispose: (@Sendable (Store) async throws -> Void)?
    /// Opens a second, independent handle onto `store`'s data in this process (a second open of
    /// the same path), leaving `store` open.
    public var openSecondHandle: (@Sendable (Store) async throws -> Store)?
    /// Runs a ``ConformanceChildProcess`` command in another process against `store`'s data, and
    /// returns when that process has exited (see ``ConformanceChildProcess/run(executable:store:command:)``).
    public var runInOtherProcess: (@Sendable (_ store: Store, _ command: [String]) async throws -> Void)?
    /// Closes `store` and opens its data again with `schema` (which may differ from the one it
    /// was written with).
    public var reopenWithSchema: (@Sendable (_ store: Store, _ schema: Schema) async throws -> Store)?
    /// A registry holding the backend (its `BackendDescriptor`): the checks that migrate a store,
    /// or open one without the app's types, close it and open its `location` through this registry
    /// (`Store.open(_:schema:options:)`, `Store.openStored(_:options:)`), so the stores
    /// `makeStore` gives must carry a location of the registered scheme. Given for a backend that
    /// implements `SchemaChangingBackend`.
    public var registry: BackendRegistry?

    /// A backend under test: a factory of fresh stores and the optional features' hooks.
    public init(
        name: String, features: Set<BackendFeature> = [], registry: BackendRegistry? = nil,
        makeStore: @escaping @Sendable (Schema) async throws -> Store,
        reopen: (@Sendable (Store) async throws -> Store)? = nil,
        reopenAfterAbruptStop: (@Sendable (Store) async throws -> Store)? = nil,
        dispose: (@Sendable (Store) async throws -> Void)? = nil,
        openSecondHandle: (@Sendable (Store) async throws -> Store)? = nil,
        runInOtherProcess: (@Sendable (_ store: Store, _ command: [String]) async throws -> Void)? = nil,
        reopenWithSchema: (@Sendable (_ store: Store, _ schema: Schema) async throws -> Store)? = nil
    ) {
        self.name = name
        var declared = features
        for (feature, present) in [
            (BackendFeature.reopen, reopen != nil), (.abruptStop, reopenAfterAbruptStop != nil),
            (.secondHandle, openSecondHandle != nil), (.otherProcesses, runInOtherProcess != nil),
            (.reopenWithAnotherSchema, reopenWithSchema != nil), (.migrate, registry != nil),
        ] {
            if present { declared.insert(feature) } else { declared.remove(feature) }
        }
        self.features = declared
        self.makeStore = makeStore
        self.reopen = reopen
        self.reopenAfterAbruptStop = reopenAfterAbruptStop
        self.dispose = dispose
        self.openSecondHandle = openSecondHandle
        self.runInOtherProcess = runInOtherProcess
        self.reopenWithSchema = reopenWithSchema
        self.registry = registry
    }
}

/// Something a check may need that not every backend has.
public enum BackendFeature: String, Sendable, Hashable, CaseIterable {
    /// The store can be closed and reopened with its data intact.
    case reopen
    /// The store can be reopened from the state an abrupt stop (a killed process) leaves.
    case abruptStop
    /// A second handle onto the same data can be open in the same process at once.
    case secondHandle
    /// Another process can commit to the same data while the store is open (observers see it).
    case otherProcesses
    /// The store can be closed and opened again with a different schema.
    case reopenWithAnotherSchema
    /// The store can be migrated (the backend implements `SchemaChangingBackend`).
    case migrate
}

/// What running a check produced.
public enum ConformanceOutcome: Sendable, Equatable {
    /// The check passed.
    case passed
    /// Not run, with the reason (never reported as a pass).
    case skipped(String)
}
