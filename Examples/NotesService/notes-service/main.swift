import Foundation
import Hummingbird
import Logging
import NotesService
import ServiceLifecycle
import Strata
import StrataInMemory
import StrataJSONFile
import StrataLMDB
import StrataPostgres
import StrataSQLite
import UnixSignals

// The store is configuration: NOTES_STORE=sqlite:./notes.sqlite (the default), lmdb:…, json:…,
// memory:, or postgres://user@host/db — the service code is the same for every one.
SQLiteBackend.register()
LMDBBackend.register()
JSONFileBackend.register()
InMemoryBackend.register()
PostgresBackend.register()

let logger = Logger(label: "notes")
let environment = ProcessInfo.processInfo.environment
let url = environment["NOTES_STORE"] ?? "sqlite:./notes.sqlite"
// A store that cannot open (in use by a migration elsewhere, damaged, unreachable) is a typed
// error: say it and exit 1, rather than let the top level end in a backtrace.
let store: Store
do {
    store = try await Store.open(
        url, schema: try Schema(Note.self, Tag.self),
        options: OpenOptions(instrumentation: StoreInstrumentation(logger: logger)))
} catch {
    logger.critical("cannot open \(url): \(error)")
    exit(1)
}
let app = Application(
    router: notesRouter(
        Notes(work: store), live: store,
        heartbeat: .seconds(Double(environment["NOTES_HEARTBEAT"] ?? "") ?? 15)),
    configuration: .init(address: .hostname("127.0.0.1", port: Int(environment["PORT"] ?? "") ?? 8080)), logger: logger)
// SIGTERM: the server stops (open live streams end at once), then the store closes.
let services = ServiceGroup(
    configuration: .init(services: [store, app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
try await services.run()
