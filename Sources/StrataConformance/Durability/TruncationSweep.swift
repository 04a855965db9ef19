import Foundation
import Strata

/// Every file of a store cut short at the lengths that matter to a format — empty, inside the
/// first header, at the first page boundaries and others spread over the file, at fractions of
/// it, one byte short — each on a fresh copy of the damage harness's template. `verify` must
/// answer a report or a `StrataError` for every one, against the app's schema and the stored one
/// (never a library's own error), and an open must open or throw a `StrataError`, with no record
/// read back wrong.
public enum TruncationSweep {
    /// The lengths `size` bytes are cut to.
    public static func lengths(of size: Int, pageSize: Int) -> [Int] {
        let fixed = [0, 1, 16, 99, 100, pageSize - 1, pageSize, pageSize + 1, 2 * pageSize, 3 * pageSize + 7]
        let relative = [size / 4, size / 2, 3 * size / 4, size - pageSize, size - 1]
        // The first pages' boundaries, where a format's headers and roots end, then at most 24
        // more evenly spread: the sweep shares `make test` with everything else.
        let pages = size / max(1, pageSize)
        let step = max(1, (pages + 23) / 24)
        let boundaries = (Array(1...4) + Array(stride(from: 5, through: max(5, pages), by: step))).map { $0 * pageSize }
        return Set(fixed + relative + boundaries).filter { $0 >= 0 && $0 < size }.sorted()
    }

    /// Runs the sweep; returns what failed, one sentence each.
    public static func run(_ backend: DurableBackend) async throws -> (trials: Int, failures: [String]) {
        try await DurabilityRun.inScratchDirectory { directory in
            try await DamageHarness.makeTemplate(backend, in: directory)
            let schema = try LedgerEntry.schema()
            let manager = FileManager.default
            var failures: [String] = []
            var trials = 0
            // The template as a process that stopped leaves it (the log holds saves), as a clean
            // close leaves it ("live": checkpointed, compacted), and as an open after a clean
            // close leaves it ("reset": each log file there but empty).
            try manager.copyItem(atPath: directory + "/live", toPath: directory + "/reset")
            for log in backend.files(backend.location(directory + "/reset")) where log.role != "data" {
                if !manager.fileExists(atPath: log.path) { _ = manager.createFile(atPath: log.path, contents: Data()) }
            }
            for source in ["/template", "/live", "/reset"] {
                for file in backend.files(backend.location(directory + source)) {
                    guard let size = (try? manager.attributesOfItem(atPath: file.path))?[.size] as? Int, size > 0
                    else { continue }
                    let relative = String(file.path.dropFirst(directory.count + source.count))
                    for length in lengths(of: size, pageSize: backend.pageSize) {
                        trials += 1
                        let trial = directory + "/trial"
                        try? manager.removeItem(atPath: trial)
                        try manager.copyItem(atPath: directory + source, toPath: trial)
                        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: trial + relative))
                        try handle.truncate(atOffset: UInt64(length))
                        try handle.close()
                        let label =
                            "\(backend.name) \(source.dropFirst()) \(file.role) cut to \(length) of \(size) bytes"
                        if let failure = await check(backend, backend.location(trial), schema) {
                            failures.append("\(label): \(failure)")
                        }
                    }
                }
            }
            return (trials, failures)
        }
    }

    /// What went wrong with one cut file, or `nil`.
    private static func check(_ backend: DurableBackend, _ location: String, _ schema: Schema) async -> String? {
        // Against the stored schema too, as `strata verify` runs it: the backend's own verifier,
        // not the registry's (which turns an untyped error into a finding).
        if let verifier = backend.registry.descriptor(for: backend.scheme)?.verify {
            do {
                _ = try await verifier(try StoreLocation("\(backend.scheme):\(location)"), nil)
            } catch is StrataError {
            } catch {
                return "verify against the stored schema threw an untyped error: \(error)"
            }
        }
        let report: VerifyReport
        do {
            report = try await backend.verify(location, schema)
        } catch is StrataError {
            return nil
        } catch {
            return "verify threw an untyped error: \(error)"
        }
        guard report.isSafeToOpen else { return report.isSound ? "verify called it unsafe without a finding" : nil }
        do {
            let store = Store(backend: try await backend.open(location, schema))
            let observation: LedgerObservation
            do {
                observation = try await LedgerObservation.observe(store, batchSize: DamageHarness.batchSize)
            } catch {
                try? await store.close()
                throw error
            }
            try? await store.close()
            return observation.wrong.isEmpty ? nil : "records read back wrong: \(observation)"
        } catch is StrataError {
            return nil
        } catch {
            return "the open or a read threw an untyped error: \(error)"
        }
    }
}
