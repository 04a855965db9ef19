// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Observation article, "On another actor: IsolatedLiveResults".
import Foundation
import Strata

actor UpcomingCount {
    private var upcoming: IsolatedLiveResults<Trip>?

    func start(in store: Store) {
        upcoming = IsolatedLiveResults(Query<Trip>.where(\.start > .now), in: store)
    }

    func count() -> Int { upcoming?.models.count ?? 0 }
}
