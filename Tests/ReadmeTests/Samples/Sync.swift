// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Foundation
import Strata
import StrataSync
import StrataSyncServer

func startSync(_ schema: Schema, serverStore: Store) async throws -> SyncEngine {
    let sync = SyncConfiguration()  // a client ID no one can guess, made once and kept in the store
    let local = try await Store.open("sqlite:./app.sqlite", schema: schema, options: OpenOptions(sync: sync))
    let server = SyncServer(store: serverStore)             // the server role, over any Strata store
    let engine = try SyncEngine(store: local, remote: InProcessTransport(server: server),
                                options: .init(batchSize: 500, policies: ["Trip": .lastWriterWins]))
    await engine.start()                                     // background: sync, back off on failure, retry
    try await engine.syncNow()                               // or on demand: push the outbox, then pull
    Task {
        for await status in await engine.statusUpdates() {   // also in flight, last error, next retry, cursor
            print(status.pendingCount, "waiting to sync")
        }
    }
    return engine
}
