// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// A DocC catalog's code sample, verbatim (ReadmeSampleTests checks every ```swift block of the
// catalogs it names appears in one of these files). Edit both together.
import Strata
import StrataSync
import StrataSyncServer

func configureConflicts(local: Store, server: Store) throws -> (ModelContext, SyncEngine) {
    let context = local.makeContext(name: "editor", mergePolicy: .storeTrumpByProperty)  // a context's save
    let syncServer = SyncServer(store: server, policies: ["Trip": .rejectStale])          // the server, on push
    let engine = try SyncEngine(store: local, remote: InProcessTransport(server: syncServer),
                                options: .init(policies: ["Trip": .propertyMerge]))       // the client, on pull
    return (context, engine)
}
