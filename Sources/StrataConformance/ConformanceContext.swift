import Foundation
import Strata
import Synchronization

/// What a check receives: fresh stores from the backend under test, reopening, and expectations
/// that throw ``ConformanceFailure`` carrying the caller's source location.
public final class ConformanceContext: Sendable {
    let backend: BackendUnderTest
    /// How sync checks reach their server: `nil` for the suite's default (the in-process
    /// transports), or the harness the suite was given (real HTTP).
    let transport: (any SyncTransportHarness)?
    private let opened = Mutex<[Store]>([])
    private let teardowns = Mutex<[@Sendable () async -> Void]>([])

    init(backend: BackendUnderTest, transport: (any SyncTransportHarness)? = nil) {
        self.backend = backend
        self.transport = transport
    }

    /// Runs `body` when the check ends, before its stores close (a server it started).
    func onTeardown(_ body: @escaping @Sendable () async -> Void) {
        teardowns.withLock { $0.append(body) }
    }

    /// A new, empty store with the travel schema (or `schema`).
    func store(_ schema: Schema? = nil) async throws -> Store {
        let store = try await backend.makeStore(try schema ?? TravelDomain.schema())
        opened.withLock { $0.append(store) }
        return store
    }

    /// A new store seeded with ``TravelData``.
    func seeded() async throws -> (Store, TravelData) {
        let store = try await store()
        return (store, try await TravelData.seed(store))
    }

    /// Closes and reopens `store` (checks that need it require ``BackendFeature/reopen``).
    func reopen(_ store: Store) async throws -> Store {
        try await reopen(store, with: backend.reopen, "reopen a store")
    }

    /// Opens the state `store` would leave after an abrupt stop (checks that need it require
    /// ``BackendFeature/abruptStop``); `store` stays open.
    func reopenAfterAbruptStop(_ store: Store) async throws -> Store {
        try await reopen(store, with: backend.reopenAfterAbruptStop, "reopen after an abrupt stop")
    }

    /// Closes `store` and opens its data with `schema` (checks that need it require
    /// ``BackendFeature/reopenWithAnotherSchema``).
    func reopen(_ store: Store, with schema: Schema) async throws -> Store {
        guard let reopen = backend.reopenWithSchema else {
            throw ConformanceFailure(
                "\(backend.name) cannot reopen with another schema", fileID: #fileID, filePath: #filePath, line: #line)
        }
        let reopened = try await reopen(store, schema)
        opened.withLock { $0.append(reopened) }
        return reopened
    }

    /// Closes `store` and opens its data with `schema` through `plan`, migrating it (checks that
    /// need it require ``BackendFeature/migrate``); `progress` receives the migration's progress.
    func migrate(
        _ store: Store, to schema: Schema, plan: MigrationPlan?,
        progress: @escaping @Sendable (MigrationProgress) -> Void = { _ in }
    ) async throws -> Store {
        let (registry, url) = try registered(store)
        try await store.close()
        let migrated = try await Store.open(
            url, schema: schema,
            options: OpenOptions(registry: registry, sync: store.sync, migrations: plan, progress: progress))
        opened.withLock { $0.append(migrated) }
        return migrated
    }

    /// The registry holding the backend and `store`'s URL in it (checks that need them require
    /// ``BackendFeature/migrate``).
    func registered(_ store: Store) throws -> (registry: BackendRegistry, url: String) {
        guard let registry = backend.registry else {
            throw ConformanceFailure(
                "\(backend.name) declares no registry", fileID: #fileID, filePath: #filePath, line: #line)
        }
        guard let location = store.location, registry.descriptor(for: location.scheme) != nil else {
            throw ConformanceFailure(
                "\(backend.name)'s store has no location of a registered scheme "
                    + "(\(store.location?.description ?? "none"))",
                fileID: #fileID, filePath: #filePath, line: #line)
        }
        return (registry, location.description)
    }

    /// Closes `store` when the check ends, with the stores the context opened.
    func adopt(_ store: Store) {
        opened.withLock { $0.append(store) }
    }

    /// A second handle onto `store`'s data (checks that need it require ``BackendFeature/secondHandle``).
    func secondHandle(_ store: Store) async throws -> Store {
        try await reopen(store, with: backend.openSecondHandle, "open a second handle")
    }

    /// Runs `command` in another process against `store` (checks that need it require
    /// ``BackendFeature/otherProcesses``).
    func runInOtherProcess(_ store: Store, _ command: [String]) async throws {
        guard let run = backend.runInOtherProcess else {
            throw ConformanceFailure(
                "\(backend.name) cannot run another process", fileID: #fileID, filePath: #filePath, line: #line)
        }
        try await run(store, command)
    }

    private func reopen(_ store: Store, with reopen: (@Sendable (Store) async throws -> Store)?, _ what: String)
        async throws -> Store
    {
        guard let reopen else {
            throw ConformanceFailure(
                "\(backend.name) cannot \(what)", fileID: #fileID, filePath: #filePath, line: #line)
        }
        let reopened = try await reopen(store)
        opened.withLock { $0.append(reopened) }
        return reopened
    }

    /// What the check's stores hold, for the message of a check that overran its deadline: each
    /// store's location and its records per entity — or that it did not answer within `patience`.
    func describeStores(within patience: Duration) async -> String {
        let stores = opened.withLock { $0 }
        guard !stores.isEmpty else { return "none opened" }
        let description = Mutex<[String]>([])
        let outcome = await runWithDeadline(patience, grace: .zero, progress: CheckProgress()) {
            for store in stores {
                let counts = try await store.read { reader in
                    try reader.schema.entities.map {
                        "\($0.name) \(try reader.fetch(FetchPlan(entity: $0.name)).count)"
                    }
                }
                let line =
                    "\(store.location?.description ?? "a store without location"): \(counts.joined(separator: ", "))"
                description.withLock { $0.append(line) }
            }
        }
        var lines = description.withLock { $0 }
        switch outcome {
        case .finished(.success): break
        case .finished(.failure(let error)): lines.append("reading them failed: \(error)")
        case .overran: lines.append("the backend did not answer a read within \(patience)")
        }
        return lines.joined(separator: "; ")
    }

    /// Closes every store the check opened and lets the backend remove what they left; runs once.
    func closeAll() async {
        let pending = teardowns.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for teardown in pending.reversed() { await teardown() }
        let stores = opened.withLock { stores in
            defer { stores.removeAll() }
            return stores
        }
        for store in stores { try? await store.close() }
        for store in stores { try? await backend.dispose?(store) }
    }
}

/// A failed expectation: what was expected, and where the check said so.
public struct ConformanceFailure: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let message: String
    /// The file of the failed expectation.
    public let fileID: String
    /// Its path.
    public let filePath: String
    /// Its line.
    public let line: Int

    /// A failure at a source location.
    public init(_ message: String, fileID: String, filePath: String, line: Int) {
        self.message = message
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
    }

    public var description: String { "\(fileID):\(line): \(message)" }

    /// How long a message may be before it is cut: the whole text goes to a file the cut message names.
    static let longestMessage = 2_000

    /// This failure with a message of at most ``longestMessage`` characters: a longer one is written
    /// whole to `strata-conformance-failures/<check>.txt` in the temporary directory, and the
    /// message keeps its start and names the file.
    func cut(for check: ConformanceCheck) -> ConformanceFailure {
        guard message.count > Self.longestMessage else { return self }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-conformance-failures")
        let name = check.id.map { $0.isLetter || $0.isNumber ? String($0) : "-" }.joined()
        let file = directory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8)).txt")
        var note = "the whole message could not be written"
        if (try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)) != nil,
            (try? Data(message.utf8).write(to: file)) != nil
        {
            note = "the whole message (\(message.count) characters) is in \(file.path)"
        }
        return ConformanceFailure(
            "\(message.prefix(Self.longestMessage)) … [cut: \(note)]", fileID: fileID, filePath: filePath, line: line)
    }
}

func expect(
    _ condition: Bool, _ message: @autoclosure () -> String = "expectation failed",
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
) throws {
    if !condition { throw ConformanceFailure(message(), fileID: fileID, filePath: filePath, line: line) }
}

func expectEqual<T: Equatable>(
    _ actual: T, _ expected: T, _ message: @autoclosure () -> String = "",
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
) throws {
    guard actual != expected else { return }
    let note = message()
    throw ConformanceFailure(
        "expected \(expected), got \(actual)\(note.isEmpty ? "" : " — \(note)")", fileID: fileID, filePath: filePath,
        line: line)
}

@discardableResult
func expectNotNil<T>(
    _ value: T?, _ message: @autoclosure () -> String = "unexpected nil",
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
) throws -> T {
    guard let value else { throw ConformanceFailure(message(), fileID: fileID, filePath: filePath, line: line) }
    return value
}

/// A failure at the caller's line, for a check that finds something wrong itself.
func failure(
    _ message: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line
) -> ConformanceFailure {
    ConformanceFailure(message, fileID: fileID, filePath: filePath, line: line)
}

/// Expects `body` to throw a `StrataError` with `code` (and, when given, naming `entity` and
/// `property`), and returns it.
@discardableResult
func expectError(
    _ code: StrataError.Code, entity: String? = nil, property: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    _ body: () async throws -> Void
) async throws -> StrataError {
    do {
        try await body()
    } catch let error as StrataError {
        guard error.code == code else {
            throw ConformanceFailure("expected \(code), got \(error)", fileID: fileID, filePath: filePath, line: line)
        }
        if let entity, error.entity != entity {
            throw ConformanceFailure(
                "expected the error to name entity \(entity): \(error)", fileID: fileID, filePath: filePath, line: line)
        }
        if let property, error.property != property {
            throw ConformanceFailure(
                "expected the error to name property \(property): \(error)", fileID: fileID, filePath: filePath,
                line: line)
        }
        return error
    } catch let failure as ConformanceFailure {
        throw failure
    } catch {
        throw ConformanceFailure(
            "expected StrataError \(code), got \(type(of: error)): \(error)", fileID: fileID, filePath: filePath,
            line: line)
    }
    throw ConformanceFailure("expected \(code), but nothing was thrown", fileID: fileID, filePath: filePath, line: line)
}

/// Expects `body` to fail with `code` and leave the store exactly as it was (records, versions,
/// relationships and history).
@discardableResult
func expectRejected(
    _ store: Store, _ code: StrataError.Code, entity: String? = nil, property: String? = nil,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
    _ body: () async throws -> Void
) async throws -> StrataError {
    let before = try await StoreSnapshot.take(store)
    let error = try await expectError(
        code, entity: entity, property: property, fileID: fileID, filePath: filePath, line: line, body)
    let after = try await StoreSnapshot.take(store)
    if before != after {
        throw ConformanceFailure(
            "the failed save changed the store: \(after.difference(from: before))", fileID: fileID, filePath: filePath,
            line: line)
    }
    return error
}
