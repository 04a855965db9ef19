import Observation

/// A query's current results as an `@Observable` object on the main actor: what SwiftData's
/// `@Query`, SQLiteData's `@FetchAll` and Realm's `@ObservedResults` give a view. It follows
/// ``Store/observe(_:)`` from its creation until it is released or ``cancel()``ed, so a SwiftUI view
/// (on Apple platforms) or any Observation-tracking code (`withObservationTracking`, on Linux too)
/// re-reads ``models`` when a commit changes the results — and only then.
///
/// ```swift
/// @MainActor
/// func followUpcomingTrips(in store: Store) -> LiveResults<Trip> {
///     let upcoming = LiveResults(Query<Trip>.all.sorted(by: \.start), in: store)
///     withObservationTracking {
///         _ = upcoming.models          // what a view's body reads
///     } onChange: {
///         print("the trips changed")   // SwiftUI re-renders here
///     }
///     return upcoming
/// }
/// ```
///
/// Until the first results arrive ``models`` is empty and ``isLoaded`` false. If the observation
/// ends with an error (the store closed, the query invalid) ``error`` holds it and ``models``
/// keeps the last results. On another actor, ``IsolatedLiveResults`` is the same object.
@MainActor
@Observable
public final class LiveResults<Model: PersistentModel> {
    /// The object that follows the query, on the main actor (``IsolatedLiveResults``); this one
    /// reads through it, so observing either notifies the same way.
    @ObservationIgnored private let base: IsolatedLiveResults<Model>

    /// The query's results, in its order, as of ``token``.
    public var models: [Model] { base.models }
    /// How ``models`` changed with the latest delivery (all insertions, for the first).
    public var diff: ResultsDiff { base.diff }
    /// The last commit the results reflect.
    public var token: HistoryToken? { base.token }
    /// Whether the first results have arrived.
    public var isLoaded: Bool { base.isLoaded }
    /// The error that ended the observation, if one did.
    public var error: StrataError? { base.error }

    /// Starts following `query` in `store`.
    public init(_ query: Query<Model>, in store: Store) {
        base = IsolatedLiveResults(query, in: store)
    }

    /// Stops following the query: ``models`` keep their last value.
    public func cancel() {
        base.cancel()
    }
}
