import Foundation
import Strata
import StrataConformance
import Synchronization
import Testing

@testable import StrataPostgres

/// The conformance fixture's tag (Swift Testing has a `Tag` too).
private typealias TravelTag = StrataConformance.Tag

/// What only a server shows: other processes writing at once, a connection killed mid-save, and
/// the typed errors of a server that refuses. Runs on the server `make test` starts.
@Suite("PostgreSQL backend", .serialized)
struct PostgresBackendTests {
    static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["STRATA_POSTGRES_URL"], !url.isEmpty else {
            let reason =
                "no PostgreSQL server: run the tests with `make test`, which starts one (or set STRATA_POSTGRES_URL)"
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw StrataError(.serverUnavailable, reason) }
            try Test.cancel(Comment(rawValue: reason))
        }
        return url
    }

    static func storeURL(_ name: String) throws -> String {
        try serverURL() + "?schema=\(name)_\(UUID().uuidString.prefix(8).lowercased())"
    }

    @Test("two processes × 1,000 saves: nothing lost, history gap-free in commit order, uniqueness held")
    func twoWriterProcesses() async throws {
        let url = try Self.storeURL("writers")
        let store = Store(backend: try await PostgresBackend.open(url: url, schema: try TravelDomain.schema()))
        defer { Task { try? await PostgresBackend.destroy(url: url) } }
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        let executable = directory.appendingPathComponent("PostgresWriterChild")
        #expect(FileManager.default.isExecutableFile(atPath: executable.path), "build with swift build --build-tests")
        let children = try ["a", "b"].map { name in
            try SpawnedProcess(executable: executable.path, arguments: [url, name, "1000"])
        }
        while children.contains(where: \.isRunning) { try await Task.sleep(for: .milliseconds(50)) }
        #expect(children.allSatisfy { $0.terminationStatus == 0 })
        let tags = try await store.repository(TravelTag.self).fetch()
        #expect(tags.filter { !$0.label.hasPrefix("shared-") }.count == 2_000)
        // Each shared label claimed by exactly one process.
        let shared = tags.filter { $0.label.hasPrefix("shared-") }
        #expect(shared.count == 50)
        #expect(Set(shared.map(\.label)).count == 50)
        let history = try await store.history()
        let tokens = history.map(\.token.value)
        #expect(tokens.count == 2_050)
        #expect(tokens == Array(tokens.sorted()), "history in commit order")
        if let first = tokens.first { #expect(tokens == Array(first..<(first + Int64(tokens.count))), "no gaps") }
        try await store.close()
    }

    @Test("a refused connection, an unknown user, a missing database: typed errors")
    func refusedServers() async throws {
        let base = try PostgresLocation(url: try Self.serverURL())
        let schema = try TravelDomain.schema()
        // A port nothing listens on.
        let closedPort = try PostgresLocation(url: "postgres://\(base.user)@127.0.0.1:1/\(base.database)")
        await #expect {
            try await PostgresBackend.open(
                location: closedPort, schema: schema, options: .init(connectTimeout: .seconds(2)))
        } throws: {
            ($0 as? StrataError)?.code == .serverUnavailable
        }
        var stranger = base
        stranger.user = "no_such_role"
        await #expect { try await PostgresBackend.open(location: stranger, schema: schema) } throws: {
            ($0 as? StrataError)?.code == .authenticationFailed
        }
        var missing = base
        missing.database = "no_such_database"
        await #expect { try await PostgresBackend.open(location: missing, schema: schema) } throws: {
            ($0 as? StrataError)?.code == .notAStore
        }
    }

    @Test("a schema written by another application is refused and left as it was")
    func foreignSchema() async throws {
        let url = try Self.storeURL("foreign")
        let name = try PostgresLocation(url: url).schemaName
        let admin = try await PostgresBackend.open(url: try Self.storeURL("admin"), schema: try TravelDomain.schema())
        try await admin.executeForTesting("CREATE SCHEMA \"\(name)\"")
        try await admin.executeForTesting("CREATE TABLE \"\(name)\".invoices (id int)")
        await #expect { try await PostgresBackend.open(url: url, schema: try TravelDomain.schema()) } throws: {
            ($0 as? StrataError)?.code == .notAStore
        }
        #expect(try await admin.tableNamesForTesting(in: name) == ["invoices"], "left as it was")
        try await PostgresBackend.destroy(url: url)
        try await PostgresBackend.destroy(url: admin.location.description)
        try await admin.close()
    }

    /// Polls the named sessions of `location`'s store until there are none (the server ends a
    /// session a moment after its client closes it), for at most two minutes (a loaded machine is
    /// slow to end sessions; the wait ends at the first count of none); the last count.
    static func presenceOnceSettled(_ location: PostgresLocation, seen by: PostgresBackend) async throws -> Int {
        var count = try await by.presenceCountForTesting(of: location)
        let deadline = ContinuousClock.now + .seconds(120)
        while count > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            count = try await by.presenceCountForTesting(of: location)
        }
        return count
    }

    @Test("a handle closed, dropped without closing, or failing to open leaves no session named for its store")
    func noPresenceOutlivesItsHandle() async throws {
        let url = try Self.storeURL("presence")
        let location = try PostgresLocation(url: url)
        let schema = try TravelDomain.schema()
        let observer = try await PostgresBackend.open(url: try Self.storeURL("observer"), schema: schema)
        let handle = try await PostgresBackend.open(url: url, schema: schema)
        #expect(try await observer.presenceCountForTesting(of: location) == 1, "an open handle shows")
        try await handle.close()
        #expect(try await Self.presenceOnceSettled(location, seen: observer) == 0, "closed")
        do { _ = try await PostgresBackend.open(url: url, schema: schema) }
        #expect(try await Self.presenceOnceSettled(location, seen: observer) == 0, "dropped without close()")
        // A tool's attach, and an open refused because the store holds another schema.
        let stored = try #require(try await PostgresBackend.storedDescription(url: url))
        #expect(stored.entities.contains { $0.name == "Trip" })
        let other = try Schema(entities: [EntityDescription(name: "Other", idKind: .uuid)])
        await #expect(throws: StrataError.self) { _ = try await PostgresBackend.open(url: url, schema: other) }
        #expect(try await Self.presenceOnceSettled(location, seen: observer) == 0, "an attach and a refused open")
        try await PostgresBackend.destroy(url: url)
        try await PostgresBackend.destroy(url: observer.location.description)
        try await observer.close()
    }

    @Test("a connection killed mid-save: a typed error, nothing partial, and the store reconnects")
    func terminatedMidSave() async throws {
        let url = try Self.storeURL("killed")
        let backend = try await PostgresBackend.open(
            url: url, schema: try TravelDomain.schema(), options: .init(maximumConnections: 2))
        let store = Store(backend: backend)
        let admin = try await PostgresBackend.open(url: url, schema: try TravelDomain.schema())
        let flushed = DispatchSemaphore(value: 0)
        let resume = DispatchSemaphore(value: 0)
        // Through the SPI, whose closure runs on the backend's own thread pool (blocking there is
        // what the pool is for).
        let save = Task {
            try await backend.write { tx in
                defer { flushed.signal() }  // also when the first part fails, so the test goes on to see why
                try tx.put(Record(entity: "Tag", id: .string("first"), version: 1, values: ["label": .string("first")]))
                // A read of the entity sends the pending insert to the server (inside BEGIN) first.
                _ = try tx.fetch(FetchPlan(entity: "Tag"))
                flushed.signal()
                resume.wait()
                try tx.put(
                    Record(entity: "Tag", id: .string("second"), version: 1, values: ["label": .string("second")]))
            }
        }
        while flushed.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(10)) }
        let killed = try await admin.terminateLockHolders()
        resume.signal()
        #expect(killed >= 1)
        do {
            try await save.value
            Issue.record("the save succeeded on a terminated connection")
        } catch let error as StrataError {
            #expect(error.code == .serverUnavailable)
            #expect(
                !error.description.contains("INSERT") && !error.description.contains("first"),
                "no SQL or values in \(error)")
        }
        #expect(try await store.repository(TravelTag.self).count() == 0, "nothing partial")
        try await store.repository(TravelTag.self).insert(TravelTag(id: "after", label: "after"))
        #expect(try await store.repository(TravelTag.self).count() == 1)
        try await admin.close()
        try await store.close()
        try await PostgresBackend.destroy(url: url)
    }

    @Test("a server restart: the store recovers, and an observer sees the commits made after it")
    func serverRestart() async throws {
        _ = try Self.serverURL()  // the same rule for a machine without a server
        // A cluster of its own: restarting the shared one would cut the other suites' connections.
        let cluster = try PrivateCluster()
        defer { cluster.stop() }
        let url = cluster.url + "?schema=restart"
        let store = Store(backend: try await PostgresBackend.open(url: url, schema: try TravelDomain.schema()))
        let other = Store(backend: try await PostgresBackend.open(url: url, schema: try TravelDomain.schema()))
        try await store.repository(TravelTag.self).insert(TravelTag(id: "before", label: "before"))
        let seen = Mutex<[TravelTag?]>([])
        let failure = Mutex<String?>(nil)
        let watcher = Task {
            do {
                for try await value in store.observe(TravelTag.self, id: "after") { seen.withLock { $0.append(value) } }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        defer { watcher.cancel() }
        try await poll("the observer's first value", within: .seconds(30)) { seen.withLock { $0 } == [nil] }
        try cluster.restart()
        // A pooled connection the restart closed may fail one operation, with a typed error;
        // the store then works on new connections, without being reopened.
        var failures = 0
        while true {
            do {
                try await other.repository(TravelTag.self).insert(TravelTag(id: "after", label: "after"))
                break
            } catch let error as StrataError where error.code == .serverUnavailable && failures < 3 {
                failures += 1
            }
        }
        // The observer's LISTEN connection came back and history was read after its last token.
        try await poll("the observer sees the commit made after the restart", within: .seconds(30)) {
            seen.withLock { $0.last } == .some(TravelTag(id: "after", label: "after"))
        }
        #expect(failure.withLock { $0 } == nil, "the observation went on through the restart")
        #expect(try await store.repository(TravelTag.self).count() == 2)
        #expect(try await store.history().count == 2)
        try await other.close()
        try await store.close()
    }
}

/// A throwaway cluster started by the project's own script, for a test that restarts its server.
private struct PrivateCluster {
    let directory: String
    let url: String
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres").path

    init() throws {
        var template = Array("/tmp/strata-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw StrataError(.storageFailure, "mkdtemp failed") }
        directory = String(cString: made)
        chmod(directory, 0o755)  // the server's user must enter it
        try Self.run("start", directory)
        // The script writes the URL there too (no pipe: the server it starts would inherit one).
        url = try String(contentsOfFile: directory + "/url", encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    func restart() throws { try Self.run("restart", directory) }
    func stop() { try? Self.run("stop", directory) }

    /// Runs the script and waits for it with `waitpid` (Foundation's `Process` does not always
    /// see this script exit: the server it starts outlives it).
    static func run(_ command: String, _ directory: String) throws {
        let arguments = [script, command, directory]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        guard posix_spawn(&pid, script, &actions, nil, &argv, environ) == 0 else {
            throw StrataError(.storageFailure, "scripts/postgres \(command) could not start")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else {
            throw StrataError(.storageFailure, "scripts/postgres \(command) failed (wait status \(status))")
        }
    }
}

/// Waits until `condition` holds; a recorded issue once `limit` has passed.
private func poll(_ what: String, within limit: Duration, _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("never within \(limit): \(what)")
            return
        }
        try await Task.sleep(for: .milliseconds(20))
    }
}

extension PostgresBackendTests {
    @Test("contains on an indexed array over 1M records is answered by its GIN index")
    func containsUsesTheGINIndex() async throws {
        let url = try Self.storeURL("gin")
        let backend = try await PostgresBackend.open(url: url, schema: try TravelDomain.schema())
        defer { Task { try? await PostgresBackend.destroy(url: url) } }
        let table = try backend.tableNameForTesting("Sample")
        // A million rows written by the server itself (a save of each would only slow the test).
        try await backend.executeForTesting(
            "INSERT INTO \(table) (\"id\", \"strata_version\", \"tags\") SELECT 's' || g, 1, "
                + "jsonb_build_array('t' || (g % 5000), 'common') FROM generate_series(1, 1000000) AS g")
        try await backend.executeForTesting("ANALYZE \(table)")
        for test in [ElementTest.contains("t42"), .containsAny(["t42", "t43"])] {
            let steps = try await backend.queryPlanForTesting(
                FetchPlan(entity: "Sample", predicate: .elements("tags", test)))
            #expect(steps.contains { $0.contains("Bitmap Index Scan on strata_i_") }, "\(steps)")
            #expect(!steps.contains { $0.contains("Seq Scan") }, "\(steps)")
        }
        let store = Store(backend: backend)
        let found = try await store.repository(Sample.self).count(where: .contains(\.tags, element: "t42"))
        #expect(found == 200, "one in 5,000 of a million")
        try await store.close()
    }
}
