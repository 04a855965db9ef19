import Foundation
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

    /// How many checks run at once and how long each may work.
    public let options: ConformanceOptions
    let slots: CheckSlots

    /// A suite over `backend`; `transport` runs the Transport checks over another transport than the in-process one.
    public init(
        backend: BackendUnderTest, transport: (any SyncTransportHarness)? = nil, options: ConformanceOptions = .init()
    ) {
        self.backend = backend
        self.transport = transport
        self.options = options
        self.slots = CheckSlots(limit: options.concurrency)
    }

    /// The checks of some categories (the sync categories, to run them over another transport).
    public static func checks(in categories: Set<ConformanceCategory>) -> [ConformanceCheck] {
        checks.filter { categories.contains($0.category) }
    }

    /// The checks `STRATA_CHECKS` selects — comma-separated prefixes of check IDs, such as
    /// `Queries/,Observation/aMoveTowardsTheEnd` — or every check when it is not set.
    public static var selected: [ConformanceCheck] {
        guard let filter = ProcessInfo.processInfo.environment["STRATA_CHECKS"], !filter.isEmpty else { return checks }
        let prefixes = filter.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return checks.filter { check in prefixes.contains { check.id.hasPrefix($0) } }
    }

    /// Every check, grouped by category in a stable order.
    public static var checks: [ConformanceCheck] {
        CRUDChecks.all + QueryChecks.all + ValueChecks.all + RelationshipChecks.all + DeleteRuleChecks.all
            + ValidationChecks.all
            + AtomicityChecks.all + HistoryChecks.all + MergePolicyChecks.all + OfflineFirstChecks.all + FaultChecks.all
            + DifferentialChecks.all + StorageChecks.all + ObservationChecks.all + MigrationChecks.all
            + MigrationChecks.steps + MigrationChecks.plans + MigrationChecks.customStages + MigrationChecks.syncs
            + MigrationChecks.shadowCopies + MigrationChecks.holders + MigrationChecks.rehearsals
            + MigrationChecks.typedRenames + MigrationChecks.conversions + MigrationChecks.collections
            + TransportChecks.all + FileTransferChecks.all + SubscriptionChecks.all + SharingChecks.all
            + AdversaryChecks.all + SimulationChecks.all
            + ToolChecks.all
            + AggregateChecks.all + StreamChecks.all + UndoChecks.all + UndoChecks.savedCascades
            + NestedContextChecks.all
            + NestedContextChecks.merging + NestedContextChecks.siblings + SectionChecks.all
            + HookChecks.all + FileChecks.all + DerivedChecks.all + SearchChecks.all + SearchChecks.upkeep
            + SearchChecks.pages
    }

    /// Runs `checks` (every check by default), at most ``ConformanceOptions/concurrency`` at
    /// once, each under its deadline, and returns the report — never throws, never hangs: a check
    /// past its deadline fails naming what it waited for, and the run goes on.
    public func runAll(_ checks: [ConformanceCheck] = ConformanceSuite.checks) async -> ConformanceReport {
        let results = await withTaskGroup(of: (Int, ConformanceResult).self) { group in
            for (index, check) in checks.enumerated() {
                group.addTask { (index, await self.result(of: check)) }
            }
            var results = [ConformanceResult?](repeating: nil, count: checks.count)
            for await (index, result) in group { results[index] = result }
            return results.compactMap { $0 }
        }
        return ConformanceReport(backend: backend.name, results: results)
    }

    /// Runs one check on a fresh store, under its deadline. Throws ``ConformanceFailure`` when it
    /// fails (an unexpected error or an overrun deadline becomes one, at the check's definition);
    /// returns ``ConformanceOutcome/skipped(_:)`` when the backend lacks a feature the check needs
    /// and claims no profile that requires it.
    @discardableResult
    public func run(_ check: ConformanceCheck) async throws -> ConformanceOutcome {
        switch await result(of: check).status {
        case .passed: return .passed
        case .skipped(let reason, _): return .skipped(reason)
        case .failed(let failure): throw failure
        }
    }

    /// Runs one check and says how it ended.
    public func result(of check: ConformanceCheck) async -> ConformanceResult {
        let missing = check.requirements.subtracting(backend.features)
        if !missing.isEmpty {
            let names = missing.map(\.rawValue).sorted().joined(separator: ", ")
            let claimed = backend.profiles.filter { !$0.requiredFeatures.isDisjoint(with: missing) }
            guard claimed.isEmpty else {
                let profiles = claimed.map(\.rawValue).sorted().joined(separator: ", ")
                let failure = check.failure(
                    "\(backend.name) claims the profile \(profiles) but does not declare \(names), which this check "
                        + "needs: give BackendUnderTest the hook for it")
                return ConformanceResult(check: check, status: .failed(failure), duration: .zero)
            }
            return ConformanceResult(
                check: check, status: .skipped(reason: "\(backend.name) does not declare \(names)", missing: missing),
                duration: .zero)
        }
        await slots.acquire()
        let start = ContinuousClock.now
        let status = await status(of: check)
        await slots.release()
        return ConformanceResult(check: check, status: status, duration: ContinuousClock.now - start)
    }

    private func status(of check: ConformanceCheck) async -> ConformanceResult.Status {
        let context = ConformanceContext(backend: backend, transport: transport)
        let progress = CheckProgress()
        let outcome = await runWithDeadline(
            options.deadline, grace: options.grace, progress: progress,
            state: { await context.describeStores(within: .seconds(5)) }
        ) {
            do {
                try await check.body(context)
            } catch {
                await context.closeAll()
                throw error
            }
            await context.closeAll()
        }
        switch outcome {
        case .finished(.success): return .passed
        case .finished(.failure(let failure as ConformanceFailure)): return .failed(failure.cut(for: check))
        case .finished(.failure(let error)):
            return .failed(check.failure("unexpected error: \(String(describing: error))").cut(for: check))
        case .overran(let waits, let stores):
            Task { await context.closeAll() }
            let waiting =
                waits.isEmpty
                ? "in no wait the suite knows of (a loop that never ends, or a backend call that never returns)"
                : "waiting for \(waits.joined(separator: " › "))"
            return .failed(
                check.failure(
                    "\(check.id) on \(backend.name) did not finish within \(options.deadline) of work; "
                        + "it was \(waiting); "
                        + "its stores: \(stores)"
                ).cut(for: check))
        }
    }
}

/// How the suite runs its checks.
public struct ConformanceOptions: Sendable {
    /// How many checks of the suite run at once: four per processor core by default (many checks
    /// spend their time waiting for observations and timers), or `STRATA_CONFORMANCE_CONCURRENCY`.
    public var concurrency: Int
    /// How long a check may work, counted from when it starts (not from when it was queued):
    /// 360 seconds by default, or `STRATA_CONFORMANCE_DEADLINE` (seconds). Past it, the check is
    /// cancelled and fails naming what it was waiting for and its stores' state.
    public var deadline: Duration
    /// How long a cancelled check is given to end before the run goes on without it.
    public var grace: Duration

    /// Options; `nil` takes the default.
    public init(concurrency: Int? = nil, deadline: Duration? = nil, grace: Duration = .seconds(5)) {
        let environment = ProcessInfo.processInfo.environment
        self.concurrency =
            concurrency ?? environment["STRATA_CONFORMANCE_CONCURRENCY"].flatMap { Int($0) }
            ?? max(4, ProcessInfo.processInfo.activeProcessorCount * 4)
        self.deadline =
            deadline ?? environment["STRATA_CONFORMANCE_DEADLINE"].flatMap { Int($0) }.map { .seconds($0) }
            ?? .seconds(360)
        self.grace = grace
    }
}

/// The backend a suite runs against: how to open a fresh, empty store, and (for persistent
/// backends) how to close and reopen one.
public struct BackendUnderTest: Sendable {
    /// The backend's name in reports.
    public var name: String
    /// The optional features the backend supports (which checks run).
    public var features: Set<BackendFeature>
    /// What the backend claims to be: a check one of these profiles needs fails instead of
    /// being skipped when the backend does not declare the feature.
    public var profiles: Set<BackendProfile>
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
        name: String, profiles: Set<BackendProfile> = [], features: Set<BackendFeature> = [],
        registry: BackendRegistry? = nil,
        makeStore: @escaping @Sendable (Schema) async throws -> Store,
        reopen: (@Sendable (Store) async throws -> Store)? = nil,
        reopenAfterAbruptStop: (@Sendable (Store) async throws -> Store)? = nil,
        dispose: (@Sendable (Store) async throws -> Void)? = nil,
        openSecondHandle: (@Sendable (Store) async throws -> Store)? = nil,
        runInOtherProcess: (@Sendable (_ store: Store, _ command: [String]) async throws -> Void)? = nil,
        reopenWithSchema: (@Sendable (_ store: Store, _ schema: Schema) async throws -> Store)? = nil
    ) {
        self.name = name
        self.profiles = profiles
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
