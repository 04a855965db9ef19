import Foundation
import Testing

/// What a build compiles and links, read from the build graph SwiftPM wrote for this very build
/// (`<scratch>/debug.yaml`, llbuild's manifest): an app that links only the core and the embedded
/// backends compiles nothing of NIO, TLS, swift-syntax or the conformance suite, and neither does
/// the `strata` executable that `make run` builds; `strata-full` is where they are.
@Suite struct BuildGraphTests {
    /// Modules that must not be reached: NIO and its TLS, swift-crypto's BoringSSL, HTTP,
    /// PostgreSQL, swift-syntax, and the package's own heavy modules.
    static func isHeavy(_ module: String) -> Bool {
        let prefixes = [
            "NIO", "CNIO", "_NIO", "Crypto", "CCrypto", "_Crypto", "PostgresNIO", "Hummingbird", "AsyncHTTPClient",
            "SwiftSyntax", "SwiftParser", "SwiftCompilerPlugin", "SwiftDiagnostics", "SwiftBasicFormat",
            "SwiftOperators", "StrataConformance", "StrataPostgres", "StrataSyncHTTP", "StrataMacros",
        ]
        return prefixes.contains { module.hasPrefix($0) }
    }

    /// The build graph's commands by name, each with its inputs.
    static func graph() throws -> [String: [String]] {
        let executable = try #require(Bundle.main.executablePath, "the test process's executable")
        let products = URL(fileURLWithPath: executable).deletingLastPathComponent()  // <scratch>/<triple>/debug
        let manifest = products.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(products.lastPathComponent + ".yaml")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        var commands: [String: [String]] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("  \""), line.hasSuffix("\":") {
                current = String(line.dropFirst(3).dropLast(2))
            } else if let name = current, line.hasPrefix("    inputs: [") {
                commands[name] = line.dropFirst("    inputs: [".count).dropLast().split(separator: ",").map {
                    String($0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")))
                }
            }
        }
        #expect(commands.count > 100, "\(manifest.path) read as a build graph: \(commands.count) commands")
        return commands
    }

    /// The modules an input path names: `…/Modules/X.swiftmodule`, `…/X.build/…`.
    static func modules(in inputs: [String]) -> Set<String> {
        var found: Set<String> = []
        for input in inputs {
            let parts = input.split(separator: "/")
            for (index, part) in parts.enumerated() {
                if part.hasSuffix(".build"), index > 0 { found.insert(String(part.dropLast(".build".count))) }
                if part.hasSuffix(".swiftmodule"), index > 0, parts[index - 1] == "Modules" {
                    found.insert(String(part.dropLast(".swiftmodule".count)))
                }
            }
        }
        return found
    }

    /// Every module that compiling `roots` needs, through the modules each compile reads.
    static func closure(of roots: [String], in graph: [String: [String]]) -> Set<String> {
        let compiles = Dictionary(
            graph.compactMap { name, inputs -> (String, [String])? in
                guard name.hasPrefix("C."), name.hasSuffix("-debug.module") else { return nil }
                // C.<module>-<triple>-debug.module: a Swift module's name has no hyphen.
                return (String(name.dropFirst(2).prefix { $0 != "-" }), inputs)
            }, uniquingKeysWith: { first, _ in first })
        var reached: Set<String> = []
        var queue = roots
        while let module = queue.popLast() {
            guard reached.insert(module).inserted else { continue }
            queue += modules(in: compiles[module] ?? []).filter { !reached.contains($0) }
        }
        return reached
    }

    @Test func anAppOnTheCoreAndTheEmbeddedBackendsCompilesNothingHeavy() throws {
        let graph = try Self.graph()
        let roots = ["Strata", "StrataSQLite", "StrataLMDB", "StrataJSONFile", "StrataInMemory", "StrataSync"]
        let reached = Self.closure(of: roots, in: graph)
        #expect(reached.isSuperset(of: ["Strata", "StrataStorage", "StrataSQLite", "GRDB"]), "\(reached.sorted())")
        let heavy = reached.filter(Self.isHeavy).sorted()
        #expect(heavy.isEmpty, "an app on \(roots) compiles \(heavy)")
    }

    @Test func theStrataExecutableLinksNothingHeavyAndStrataFullLinksTheRest() throws {
        let graph = try Self.graph()
        let light = try #require(
            graph.first {
                $0.key.hasPrefix("C.strata-") && !$0.key.hasPrefix("C.strata-full-") && $0.key.hasSuffix(".exe")
            }?
            .value)
        let full = try #require(graph.first { $0.key.hasPrefix("C.strata-full-") && $0.key.hasSuffix(".exe") }?.value)
        let lightModules = Self.modules(in: light)
        #expect(lightModules.isSuperset(of: ["StrataCommandLine", "StrataSQLite", "StrataLMDB", "ArgumentParser"]))
        let heavy = lightModules.filter(Self.isHeavy).sorted()
        #expect(heavy.isEmpty, "strata links \(heavy)")
        let fullModules = Self.modules(in: full)
        #expect(fullModules.isSuperset(of: ["StrataPostgres", "StrataConformance", "StrataSyncHTTPServer", "NIOCore"]))
    }
}
