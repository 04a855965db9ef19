import Foundation
import Strata

/// What the benchmark executables share about time, memory and child processes.

/// A duration in seconds.
public func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Prepares (untimed) and times `runs` runs of a workload's side; the median in milliseconds, and
/// the count the last run returned (both sides of a workload must agree on it).
public func medianMilliseconds(
    runs: Int, _ prepare: @Sendable () async throws -> @Sendable () async throws -> Int
) async throws -> (Double, Int) {
    var times: [Double] = []
    var result = 0
    for _ in 0..<max(1, runs) {
        let run = try await prepare()
        let clock = ContinuousClock()
        let start = clock.now
        result = try await run()
        times.append(seconds(clock.now - start) * 1_000)
    }
    return (times.sorted()[times.count / 2], result)
}

/// A field of /proc/self/status (VmRSS, VmHWM, RssAnon, …) in MiB; 0 where it cannot be read.
public func memoryMiB(_ field: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
        let kib = Double(line.split(separator: " ").dropFirst().first { !$0.isEmpty } ?? "")
    else { return 0 }
    return kib / 1024
}

/// Runs this executable again with `arguments` (a measurement in a process of its own) and
/// returns what it printed, trimmed; a child that fails is an error.
public func child(_ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw StrataError(.storageFailure, "child \(arguments.joined(separator: " ")) failed")
    }
    return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
