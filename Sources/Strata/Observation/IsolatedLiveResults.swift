import Observation

/// A query's current results as an `@Observable` object on the actor that creates it: what
/// ``LiveResults`` is on the main actor, for a service's actor, a test's or any other. It follows
/// ``Store/observe(_:)`` from its creation until it is released or ``cancel()``ed; its updates run
/// on that actor, so the actor's code (and `withObservationTracking` there) reads ``models`` without
/// a suspension, and only a commit that changes the results notifies.
///
/// ```swift
/// actor Dashboard {
///     private var upcoming: IsolatedLiveResults<Trip>?
///
///     func start(in store: Store) {
///         upcoming = IsolatedLiveResults(Query<Trip>.all.sorted(by: \.start), in: store)
///     }
///
///     func upcomingCount() -> Int { upcoming?.models.count ?? 0 }
/// }
/// ```
///
/// The object is not `Sendable`: it stays with the actor that made it (the `isolation` argument,
/// the caller's own by default). Until the first results arrive ``models`` is empty and
/// ``isLoaded`` false; an observation that ends with an error leaves it in ``error`` and keeps the
/// last results.
@Observable
public final class IsolatedLiveResults<Model: PersistentModel> {
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

    /// Starts following `query` in `store`, updating on `isolation` (the caller's actor).
    public init(_ query: Query<Model>, in store: Store, isolation: isolated (any Actor) = #isolation) {
        let observation = store.observe(query)
        task = Task { [weak self] in
            _ = isolation  // the task runs on the creator's actor, where the object lives
            do {
                for try await results in observation {
                    guard let self, !Task.isCancelled else { return }
                    self.apply(results)
                }
            } catch is CancellationError {
                return
            } catch {
                self?.error = error as? StrataError ?? StrataError(.storageFailure, "\(error)")
            }
        }
    }

    private func apply(_ results: QueryResults<Model>) {
        // A delivery that changed nothing the results hold tells no one.
        if !isLoaded || !results.diff.isEmpty {
            models = results.models
            diff = results.diff
        }
        token = results.token
        if !isLoaded { isLoaded = true }
    }

    /// Stops following the query: ``models`` keep their last value.
    public func cancel() {
        task?.cancel()
        task = nil
    }

    deinit {
        task?.cancel()
    }
}
