// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Strata
import StrataSyncHTTPClient                       // on the client
import StrataSync                                 // the engine that drains the outbox

func syncOverHTTP(_ local: Store, session: any SyncTokenProvider) throws -> SyncEngine {
    let remote = HTTPSyncRemote(baseURL: "https://sync.example.com", tokens: session)
    return try SyncEngine(store: local, remote: remote, options: .init(pullWait: .seconds(25)))
}
