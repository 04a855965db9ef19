// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// A DocC catalog's code sample, verbatim (ReadmeSampleTests checks every ```swift block of the
// catalogs it names appears in one of these files). Edit both together.
import Strata
import StrataSyncServer

func embeddedServer(_ store: Store) -> InProcessTransport {
    var access = SyncAccess()
    access.serverOwned("Person", ["email"])  // clients may not change these
    return InProcessTransport(server: SyncServer(store: store, access: access))
}
