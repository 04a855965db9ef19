import ArgumentParser
import Strata
import StrataCommandLine

/// `strata`: the tools over embedded stores (`sqlite:`, `lmdb:`, `json:`, `memory:`), built from
/// nothing of NIO, TLS or the conformance suite. `serve`, `checks` and `postgres://` URLs are
/// strata-full's: strata runs it in its place when it is built beside it.
@main
struct StrataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: CommandLineTool.abstract,
        discussion: """
            serve, checks and postgres:// URLs are in strata-full (the same tool with PostgreSQL, the sync \
            server and the conformance suite), which strata runs in its place when it is built beside it: \
            swift build --product strata-full (or make strata-full).
            """,
        version: StrataRelease.version,
        subcommands: CommandLineTool.commands + [ServeHandOff.self, ChecksHandOff.self],
        defaultSubcommand: Demo.self)

    static func main() async {
        FullTool.handOffIfNeeded(CommandLine.arguments)
        await main(nil)
    }
}

/// `strata serve`, listed in the help: strata-full serves.
struct ServeHandOff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a store to sync clients over HTTP (strata-full's: strata runs it).")
    @Argument(parsing: .captureForPassthrough, help: "strata-full serve's arguments.") var arguments: [String] = []

    func run() throws { throw FullTool.missing("`strata serve`") }
}

/// `strata checks`, listed in the help: strata-full holds the suite.
struct ChecksHandOff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checks",
        abstract: "List or measure the conformance suite's checks (strata-full's: strata runs it).")
    @Argument(parsing: .captureForPassthrough, help: "strata-full checks' arguments.") var arguments: [String] = []

    func run() throws { throw FullTool.missing("`strata checks`") }
}
