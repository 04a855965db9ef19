import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Handing a command to strata-full, the executable beside this one with PostgreSQL, `serve` and
/// `checks`: it replaces this process (same process ID, same signals, same exit code), so a user
/// or a script cannot tell the two apart.
enum FullTool {
    static let name = "strata-full"

    /// Why `arguments` (this process's, the executable first) need strata-full, or nil.
    static func reason(_ arguments: [String]) -> String? {
        let rest = arguments.dropFirst()
        if let command = rest.first, command == "serve" || command == "checks" { return "`strata \(command)`" }
        if rest.contains(where: { $0.hasPrefix("postgres://") || $0.hasPrefix("postgresql://") }) {
            return "a postgres:// URL"
        }
        return nil
    }

    /// Runs strata-full in this process's place when `arguments` need it; when it is not built,
    /// says how to build it and exits 1.
    static func handOffIfNeeded(_ arguments: [String]) {
        guard let reason = reason(arguments) else { return }
        if let path = siblingPath(), access(path, X_OK) == 0 {
            exec(path, [path] + arguments.dropFirst())
        }
        FileHandle.standardError.write(Data((missing(reason).message + "\n").utf8))
        exit(1)
    }

    /// The error for `what` when strata-full is not beside this executable.
    static func missing(_ what: String) -> ValidationError {
        ValidationError(
            "\(what) needs \(name), the same tool with PostgreSQL, the sync server and the conformance suite; "
                + "build it beside strata: swift build --product \(name) (or make \(name))")
    }

    /// strata-full's path: beside this executable.
    static func siblingPath() -> String? {
        guard let executable = Bundle.main.executablePath else { return nil }
        let directory = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        return directory.appendingPathComponent(name).path
    }

    /// Replaces this process with `path` run with `arguments`; returns only if that failed.
    static func exec(_ path: String, _ arguments: [String]) {
        var pointers = arguments.map { strdup($0) }
        pointers.append(nil)
        execv(path, &pointers)
        for pointer in pointers { free(pointer) }
    }
}
