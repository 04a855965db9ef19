import Foundation
import Strata
import StrataSync
import StrataConformance
import StrataSyncServer
import Testing

@testable import StrataLMDB

private typealias Tag = StrataConformance.Tag

let childMode = ProcessInfo.processInfo.environment["STRATA_LMDB_CHILD_MODE"]
let childPath = ProcessInfo.processInfo.environment["STRATA_LMDB_CHILD_PATH"] ?? ""

/// Starts this test binary again as a child that opens the store at `path` and then reads or writes
/// until it is killed; returns once the child has signalled (through a marker file) that it is busy.
func startChild(_ mode: String, _ path: String) async throws -> SpawnedProcess {
    let process = try SpawnedProcess(
        executable: CommandLine.arguments[0],
        arguments: ["--testing-library", "swift-testing", "--filter", "LMDBCrashTests"],
        environment: ProcessInfo.processInfo.environment.merging(
            ["STRATA_LMDB_CHILD_MODE": mode, "STRATA_LMDB_CHILD_PATH": path], uniquingKeysWith: { $1 }))
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: path + "/busy"), Date() < deadline, process.isRunning {
        try await Task.sleep(for: .milliseconds(10))
    }
    return process
}

@Suite("LMDB: crashes", .serialized)
struct LMDBCrashTests {
    /// The child's side of the crash tests: only enabled in a child started by them.
    @Test(.enabled(if: childMode != nil, "runs only as the child process the crash tests start"))
    func childProcess() async throws {
        let backend = try await LMDBBackend.open(path: childPath, schema: try TravelDomain.schema())
        if childMode == "reader" {
            try backend.readRaw { _ in
                _ = FileManager.default.createFile(atPath: childPath + "/busy", contents: nil)
                while true { sleep(1) }
            }
        } else {
            // Sync on: the outbox must be exactly as whole as the data after the kill.
            let store = Store(backend: backend, sync: SyncConfiguration(clientID: "child"))
            for batch in 0... {
                try await store.transaction { tx in
                    for index in 0..<50 { try tx.insert(Tag(id: "b\(batch)-\(index)", label: "B\(batch)-\(index)")) }
                }
                if batch == 4 { _ = FileManager.default.createFile(atPath: childPath + "/busy", contents: nil) }
            }
        }
    }

    @Test(.enabled(if: childMode == nil)) func aKilledReaderLeavesAStaleSlotThatIsCleared() async throws {
        try await withTemporaryDirectory { path in
            let backend = try await LMDBBackend.open(path: path, schema: try TravelDomain.schema())
            try await Store(backend: backend).repository(Tag.self).insert(Tag(id: "x", label: "X"))
            let child = try await startChild("reader", path)
            #expect(FileManager.default.fileExists(atPath: path + "/busy"), "the child opened its reader")
            kill(child.processIdentifier, SIGKILL)
            _ = await child.exit()
            #expect(backend.clearStaleReaders() >= 1, "the dead reader's slot is found and cleared")
            let store = Store(backend: backend)
            try await store.repository(Tag.self).insert(Tag(id: "y", label: "Y"))
            #expect(try await store.repository(Tag.self).count() == 2)
        }
    }

    @Test(.enabled(if: childMode == nil)) func aWriterKilledMidWriteLeavesOnlyWholeSaves() async throws {
        try await withTemporaryDirectory { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let child = try await startChild("writer", path)
            #expect(FileManager.default.fileExists(atPath: path + "/busy"), "the child was writing")
            try await Task.sleep(for: .milliseconds(50))
            kill(child.processIdentifier, SIGKILL)
            _ = await child.exit()
            let store = Store(
                backend: try await LMDBBackend.open(path: path, schema: try TravelDomain.schema()),
                sync: SyncConfiguration(clientID: "child"))
            let count = try await store.repository(Tag.self).count()
            #expect(count >= 250 && count % 50 == 0, "every committed save is whole: \(count) tags")
            #expect(try await store.history().count == count / 50)
            // Every committed write is in the outbox, and reaches a server.
            try await withTemporaryDirectory { serverPath in
                let server = SyncServer(
                    store: Store(
                        backend: try await LMDBBackend.open(path: serverPath, schema: try TravelDomain.schema())))
                let engine = try SyncEngine(store: store, remote: InProcessTransport(server: server))
                #expect(try await engine.pendingMutations().count == count)
                try await engine.syncNow()
                #expect(try await server.store.repository(Tag.self).count() == count)
                try await server.store.close()
            }
            try await store.repository(Tag.self).insert(Tag(id: "after", label: "After"))
        }
    }
}
