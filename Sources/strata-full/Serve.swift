import ArgumentParser
import Dispatch
import Foundation
import Strata
import StrataCommandLine
import StrataSyncHTTPServer
import StrataSync
import StrataSyncServer

/// `strata serve`: a ready sync server over any store, until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a store to sync clients over HTTP (push, pull with long polls, snapshots).",
        discussion: """
            The store is opened with the schema it holds (its entities, types, indexes, uniqueness and \
            inverses); delete rules and validation rules are the app's code, so a server that must enforce \
            them is an app that mounts `addSyncRoutes` with its own schema. The tokens file holds one \
            `TOKEN IDENTITY` pair per line (`#` starts a comment). Without --owner, every identity reads \
            and writes every record.

            Examples:
              strata serve sqlite:./app.sqlite --port 8080 --tokens tokens.txt
              strata serve sqlite:./app.sqlite --port 8080 --tokens tokens.txt --owner Note.owner
              strata serve sqlite:./app.sqlite --tokens tokens.txt --owner Note.owner --share Note:comments

            --share lets the owners of an --owner entity's records share them (with the records of the \
            relationship paths after the colon) through SyncShare records: the store's schema must hold \
            the SyncShare entity.
            """)

    @Argument(help: "The store's URL (sqlite:PATH, lmdb:PATH, json:PATH, postgres://…): an existing store.") var url:
        String
    @Option(help: "The port to listen on (0: any free port, printed at start).") var port = 8080
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The tokens file: `TOKEN IDENTITY` per line.") var tokens: String
    @Option(
        help: ArgumentHelp(
            "Scope an entity to its owner: ENTITY.PROPERTY holds the identity that may read and write a record "
                + "(repeatable).")
    )
    var owner: [String] = []
    @Option(
        help: ArgumentHelp(
            "Let owners share an --owner entity's records: ENTITY or ENTITY:PATH,PATH with the relationship paths "
                + "a share takes along (repeatable).")
    )
    var share: [String] = []
    @Option(help: "Write the port listened on to this file once listening (for scripts and tests).") var portFile:
        String?
    @Option(help: "Requests per second per identity (after a burst of twice as many).") var rate: Double = 50
    @Option(help: "Seconds a connection may sit with no request under way before it is closed (0: never).")
    var idleTimeout: Double = 60
    @Option(help: "Seconds a long poll may wait for a change before it answers (a longer `wait` is lowered to it).")
    var maxWait: Double = 30
    @Option(help: "Bytes of files each identity may keep stored (files it uploaded whole).") var fileQuota: Int64 =
        4 << 30
    @Option(help: "Bytes each identity's unfinished uploads may declare together.") var uploadQuota: Int64 = 1 << 30
    @Option(help: "Seconds between collections of idle uploads and unreferenced files (0: never).")
    var collectEvery: Double = 3_600
    @Option(help: "Seconds an idle upload or a file no record refers to is kept before it is collected.")
    var collectAfter: Double = 86_400

    func run() async throws {
        // A tool opens what exists: an empty PostgreSQL namespace is not created here.
        CommandLineBackends.register()
        let authenticator = try StaticTokenAuthenticator(file: tokens)
        let store = try await Store.openStored(url)
        var access = SyncAccess()
        for rule in owner {
            let parts = rule.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let entity = store.schema.entity(parts[0]),
                entity.attribute(parts[1])?.type == .string
            else {
                throw ValidationError("--owner \(rule): expected ENTITY.PROPERTY naming a text attribute of the store")
            }
            let property = parts[1]
            access.scope(parts[0]) { identity in .matching(.compare(property, .equal, .string(identity.id), [])) }
        }
        try Self.addShares(share, owners: owner, schema: store.schema, to: &access)
        let endpoint = SyncEndpoint(
            server: SyncServer(store: store, access: access), authenticator: authenticator,
            limits: SyncLimits(
                maximumWait: Self.duration(maxWait), rate: SyncRateLimit(perSecond: rate, burst: rate * 2),
                idleTimeout: idleTimeout > 0 ? Self.duration(idleTimeout) : nil,
                files: SyncFileQuota(unfinishedBytes: uploadQuota, storedBytes: fileQuota),
                fileCollection: collectEvery > 0
                    ? SyncFileCollection(
                        every: Self.duration(collectEvery), unfinishedFor: Self.duration(collectAfter),
                        unreferencedFor: Self.duration(collectAfter)) : nil))
        let server = SyncHTTPServer(endpoint: endpoint)
        let bound = try await server.start(host: host, port: port)
        if let portFile { try String(bound).write(toFile: portFile, atomically: true, encoding: .utf8) }
        print(
            "strata: serving \(url) at http://\(host):\(bound) (\(store.schema.entities.count) entities); Ctrl-C stops")
        await Self.waitForTermination()
        print("strata: stopping")
        await server.stop()
        try await store.close()
    }

    /// Seconds from the command line as a duration (at most about 31 years).
    static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64(min(max(seconds, 0), 1e9) * 1_000))
    }

    /// Makes the `--share` entities shareable by the owners `--owner` names.
    static func addShares(_ rules: [String], owners: [String], schema: Schema, to access: inout SyncAccess) throws {
        guard !rules.isEmpty else { return }
        guard schema.entity(SyncShare.entityName) != nil else {
            throw ValidationError("--share needs the SyncShare entity in the store's schema")
        }
        for rule in rules {
            let parts = rule.split(separator: ":", maxSplits: 1).map(String.init)
            let entity = parts[0]
            guard let property = owners.first(where: { $0.hasPrefix(entity + ".") })?.dropFirst(entity.count + 1)
            else { throw ValidationError("--share \(rule): \(entity) needs an --owner ENTITY.PROPERTY rule") }
            let paths = parts.count == 2 ? parts[1].split(separator: ",").map(String.init) : []
            let name = String(property)
            access.shareable(
                entity, ownedBy: { .compare(name, .equal, .string($0.id), []) }, including: paths)
        }
        try access.checkSharing(against: schema)
    }

    /// Returns at SIGINT or SIGTERM.
    static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = DispatchQueue(label: "strata.serve.signals")
            var sources: [any DispatchSourceSignal] = []
            var resumed = false
            for number in [SIGINT, SIGTERM] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: once)
                source.setEventHandler {
                    guard !resumed else { return }
                    resumed = true
                    for source in sources { source.cancel() }
                    continuation.resume()
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
