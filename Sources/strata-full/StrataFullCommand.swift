import ArgumentParser
import Foundation
import Strata
import StrataCommandLine
import StrataConformance
import StrataPostgres

/// `strata-full`: every command of `strata`, with PostgreSQL (`postgres://` URLs), `serve` (the
/// sync server over HTTP) and `checks` (the conformance suite). `strata` hands these to it when it
/// is built beside it (`swift build --product strata-full`), so users type `strata` for all of them.
@main
struct StrataFullCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: CommandLineTool.abstract,
        discussion: "This is strata-full: strata with PostgreSQL, serve and checks.",
        version: StrataRelease.version,
        subcommands: CommandLineTool.commands + [Serve.self, Checks.self],
        defaultSubcommand: Demo.self)

    static func main() async {
        CommandLineBackends.add { creating in
            PostgresBackend.register(options: PostgresBackend.Options(createIfMissing: creating))
        }
        await main(nil)
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
