// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Observation article, "In a view: LiveResults".
import Foundation
import Observation
import Strata

@MainActor
func followUpcomingTrips(in store: Store) -> LiveResults<Trip> {
    let upcoming = LiveResults(Query<Trip>.where(\.start > .now).sorted(by: \.start), in: store)
    withObservationTracking {
        _ = upcoming.models          // what a view's body reads
    } onChange: {
        print("the trips changed")   // where SwiftUI re-renders
    }
    return upcoming
}

#if canImport(SwiftUI)
import SwiftUI

struct UpcomingTrips: View {
    @State var trips: LiveResults<Trip>
    var body: some View {
        List(trips.models, id: \.id) { Text($0.name) }
    }
}
#endif
