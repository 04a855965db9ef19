import Strata
import StrataSQLite

/// The backend the README's conformance runner registers as `mine:` — SQLite under another
/// scheme, so the runner, as printed, runs the whole suite.
enum MyBackend {
    static func register() {
        BackendRegistry.shared.register(scheme: "mine") { location, schema in
            try await SQLiteBackend.open(path: location.path, schema: schema)
        }
    }
}
