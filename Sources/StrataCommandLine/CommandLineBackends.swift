import Strata
import StrataInMemory
import StrataJSONFile
import StrataLMDB
import StrataSQLite
import Synchronization

/// The backends a `strata` command opens URLs with: the embedded four (`memory:`, `sqlite:`,
/// `lmdb:`, `json:`) always, and whatever the executable adds before it parses its arguments
/// (`strata-full` adds `postgres://`).
public enum CommandLineBackends {
    /// The URL a store opens at when none is given: the embedded default backend.
    public static let defaultStore = "sqlite:./strata-demo.sqlite"

    private static let extras = Mutex<[@Sendable (_ creating: Bool) -> Void]>([])

    /// Adds a registration run whenever a command registers its backends. `creating` is whether
    /// the command may create a store where there is none (an import's or a copy's target).
    public static func add(_ registration: @escaping @Sendable (_ creating: Bool) -> Void) {
        extras.withLock { $0.append(registration) }
    }

    /// Registers every backend this executable includes.
    public static func register(creating: Bool = false) {
        InMemoryBackend.register()
        SQLiteBackend.register()
        LMDBBackend.register()
        JSONFileBackend.register()
        for registration in extras.withLock({ $0 }) { registration(creating) }
    }
}
