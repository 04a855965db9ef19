import Foundation
import Strata
import StrataConformance
import StrataJSONFile
import Testing

private let lockChildPath = ProcessInfo.processInfo.environment["STRATA_JSON_LOCK_CHILD_PATH"]

@Suite("JSON file: lock across processes", .serialized)
struct JSONFileLockTests {
    /// The child's side: opens the store, reports (marker file) and holds it until killed.
    @Test(.enabled(if: lockChildPath != nil, "runs only as the child process the lock test starts"))
    func childHoldsTheStore() async throws {
        let path = lockChildPath ?? ""
        let backend = try await JSONFileBackend.open(path: path, schema: try TravelDomain.schema())
        _ = FileManager.default.createFile(atPath: path + ".held", contents: nil)
        while true { try await Task.sleep(for: .seconds(1)) }
        _ = backend
    }

    @Test(.enabled(if: lockChildPath == nil)) func anotherProcessHoldingTheStoreRefusesThisOne() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "strata-json-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.json").path
        let child = try SpawnedProcess(
            executable: CommandLine.arguments[0],
            arguments: ["--testing-library", "swift-testing", "--filter", "JSONFileLockTests"],
            environment: ProcessInfo.processInfo.environment.merging(
                ["STRATA_JSON_LOCK_CHILD_PATH": path], uniquingKeysWith: { $1 }))
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: path + ".held"), Date() < deadline, child.isRunning {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(FileManager.default.fileExists(atPath: path + ".held"), "the child opened the store")
        do {
            _ = try await JSONFileBackend.open(path: path, schema: try TravelDomain.schema())
            Issue.record("a second process opened a store another process holds")
        } catch let error as StrataError {
            #expect(error.code == .storeInUse)
            #expect(error.message.contains("process \(child.processIdentifier)"), "\(error)")
        }
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        // The kernel releases a dead process's flock: the store opens now.
        let backend = try await JSONFileBackend.open(path: path, schema: try TravelDomain.schema())
        try await backend.close()
    }
}
