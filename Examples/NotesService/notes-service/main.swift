import Foundation
import Hummingbird
import Logging
import NotesService
import Strata
import StrataInMemory
import StrataJSONFile
import StrataLMDB
import StrataPostgres
import StrataSQLite

// The store is configuration: NOTES_STORE=sqlite:./notes.sqlite (the default), lmdb:…, json:…,
// memory:, or postgres://user@host/db — the service code is the same for every one.
SQLiteBackend.register()
LMDBBackend.register()
JSONFileBackend.register()
InMemoryBackend.register()
PostgresBackend.register()

let logger = Logger(label: "notes")
let environment = ProcessInfo.processInfo.environment
let store = try await Store.open(
    environment["NOTES_STORE"] ?? "sqlite:./notes.sqlite", schema: try Schema(Note.self),
    options: OpenOptions(instrumentation: StoreInstrumentation(logger: logger)))
let app = Application(
    router: notesRouter(Notes(notes: store.repository(Note.self))),
    configuration: .init(address: .hostname("127.0.0.1", port: Int(environment["PORT"] ?? "") ?? 8080)), logger: logger)
try await app.runService()
try await store.close()
