import Foundation
import Strata

/// The other process of the checks that need one: commits to a store the check has open, so the
/// check can prove its observers see commits they did not make.
///
/// A backend's conformance target builds a small executable whose `main` calls
/// ``main(arguments:)`` after registering its backend, and declares ``BackendFeature/otherProcesses``
/// with a ``BackendUnderTest/runInOtherProcess`` that calls ``run(executable:store:command:)``.
///
/// ```swift
/// // main.swift of the child executable
/// SQLiteBackend.register()
/// exit(await ConformanceChildProcess.main(arguments: Array(CommandLine.arguments.dropFirst())))
/// ```
public enum ConformanceChildProcess {
    /// Runs one command — `URL insert-tag ID LABEL`, `URL insert-tag-if-absent ID LABEL`,
    /// `URL relabel-tag ID LABEL`, or
    /// `URL hold MARKER -` (keep the store open: create `MARKER.ready`, then wait until
    /// `MARKER.release` exists, at most two minutes) — against the store at `URL` (opened with
    /// the fixture schema through the shared registry) and closes it. Returns the process's exit
    /// status: 0 when the commit is durable (or the hold ended), 1 (with the error on standard
    /// error) otherwise.
    public static func main(arguments: [String]) async -> Int32 {
        do {
            guard arguments.count == 4 else {
                throw StrataError(
                    .invalidQuery,
                    "usage: URL insert-tag|insert-tag-if-absent|relabel-tag ID LABEL, or URL hold MARKER - "
                        + "(got \(arguments))")
            }
            let store = try await Store.open(arguments[0], schema: try TravelDomain.schema())
            let tags = store.repository(Tag.self)
            switch arguments[1] {
            case "insert-tag":
                try await tags.insert(Tag(id: arguments[2], label: arguments[3]))
            case "insert-tag-if-absent":
                _ = try await tags.insertIfAbsent(Tag(id: arguments[2], label: arguments[3]))
            case "relabel-tag":
                try await tags.update(Tag(id: arguments[2], label: arguments[3]))
            case "hold":
                _ = try await tags.count()
                _ = FileManager.default.createFile(atPath: arguments[2] + ".ready", contents: nil)
                let deadline = ContinuousClock.now + .seconds(120)
                let release = arguments[2] + ".release"
                while !FileManager.default.fileExists(atPath: release), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
            default:
                throw StrataError(.invalidQuery, "unknown command \(arguments[1])")
            }
            try await store.close()
            return 0
        } catch {
            FileHandle.standardError.write(Data("conformance child: \(error)\n".utf8))
            return 1
        }
    }

    /// Runs `executable` with `store`'s location and `command`, and returns once it exited
    /// successfully; a failure carries its standard error.
    public static func run(executable: URL, store: Store, command: [String]) async throws {
        guard let location = store.location else {
            throw StrataError(.unsupportedStore, "the store has no location another process could open")
        }
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("strata-child-\(UUID()).err").path
        defer { try? FileManager.default.removeItem(atPath: errors) }
        let process = try SpawnedProcess(
            executable: executable.path, arguments: [location.description] + command, standardError: errors)
        let status = await process.exit()
        guard status == 0 else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw StrataError(.storageFailure, "the other process exited with \(status): \(message)")
        }
    }
}
