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
/// keeps the last results.
@MainActor
@Observable
public final class LiveResults<Model: PersistentModel> {
    /// The query's results, in its order, as of ``token``.
    public private(set) var models: [Model] = []
    /// How ``models`` changed with the latest delivery (all insertions, for the first).
    public private(set) var diff = ResultsDiff()
    /// The last commit the results reflect.
    public private(set) var token: HistoryToken?
    /// Whether the first results have arrived.
    public private(set) var isLoaded = false
    /// The error that ended the observation, if one did.
    public private(set) var error: StrataError?

    @ObservationIgnored private var task: Task<Void, Never>?

    /// Starts following `query` in `store`.
    public init(_ query: Query<Model>, in store: Store) {
        let observation = store.observe(query)
        task = Task { [weak self] in
            do {
                for try await results in observation {
                    guard let self, !Task.isCancelled else { return }
                    // A delivery that changed nothing the results hold tells no one.
                    if !self.isLoaded || !results.diff.isEmpty {
                        self.models = results.models
                        self.diff = results.diff
                    }
                    self.token = results.token
                    if !self.isLoaded { self.isLoaded = true }
                }
            } catch is CancellationError {
                return
            } catch {
                self?.error = error as? StrataError ?? StrataError(.storageFailure, "\(error)")
            }
        }
    }

    /// Stops following the query: ``models`` keep their last value.
    public func cancel() {
        task?.cancel()
        task = nil
    }

    isolated deinit {
        task?.cancel()
    }
}
