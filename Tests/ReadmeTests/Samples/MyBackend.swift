// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
import Strata
import StrataSQLite

/// The backend the README's conformance runner registers as `mine:` — SQLite under another
/// scheme, so the runner, as printed, runs the whole suite.
enum MyBackend {
    static func register() {
        BackendRegistry.shared.register(
            BackendDescriptor(scheme: "mine") { location in
                try SQLiteBackend.storedDescription(path: location.path)
            } open: { location, schema in
                try await SQLiteBackend.open(path: location.path, schema: schema)
            })
    }
}
