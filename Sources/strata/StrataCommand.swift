import ArgumentParser
import Foundation
import Strata
import StrataConformance
import StrataInMemory
import StrataJSONFile
import StrataLMDB
import StrataSQLite

@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Strata: Core Data–grade persistence for Swift service layers, over pluggable backends.",
        subcommands: [
            Demo.self, Inspect.self, QueryCommand.self, Export.self, Import.self, Copy.self, Verify.self, Migrate.self,
            SchemaCommand.self, Serve.self, Checks.self,
        ],
        defaultSubcommand: Demo.self)

    /// The URL a store opens at when none is given: the embedded default backend.
    static let defaultStore = "sqlite:./strata-demo.sqlite"

    /// Registers every backend this build includes.
    static func registerBackends() {
        InMemoryBackend.register()
        SQLiteBackend.register()
        LMDBBackend.register()
        JSONFileBackend.register()
    }
}

struct Checks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the conformance suite's checks by category, or measure the suite against its mutants.")

    @Flag(help: "Print every check, not just the counts.") var all = false
    @Flag(
        help: "Run the suite against every planted-bug backend and print how many it kills (exits 1 if any survives).")
    var mutants = false

    func run() async throws {
        if mutants {
            let report = await MutationTesting.run { print($0) }
            print(report.summary.split(separator: "\n").first ?? "")
            if !report.survivors.isEmpty { throw ExitCode(1) }
            return
        }
        let checks = ConformanceSuite.checks
        for category in ConformanceCategory.allCases {
            let inCategory = checks.filter { $0.category == category }
            print("\(category.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(inCategory.count)")
            if all { for check in inCategory { print("    \(check.name)") } }
        }
        print("total          \(checks.count)")
    }
}
