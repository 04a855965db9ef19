import Foundation

/// One delivered value of observed sections: the sections, and how they changed since the value
/// delivered before it (every section inserted, for the first).
public struct SectionedQueryResults<Model: PersistentModel, Key: Hashable & Comparable & Sendable>: Sendable {
    /// The sections, as a fresh sectioned fetch would return them at `token`.
    public let results: SectionedResults<Model, Key>
    /// The change from the previously delivered value.
    public let diff: SectionedResultsDiff
    /// The last commit these sections reflect (`nil` before the store's first save).
    public let token: HistoryToken?
    /// The sections, in order.
    public var sections: [Section<Model, Key>] { results.sections }
}

/// The live sections of a query: an `AsyncSequence` that delivers the sections, then new sections
/// after each change that can alter them, each with a ``SectionedResultsDiff`` against the value
/// delivered before it. See ``Store/observe(_:sectionedBy:)`` and
/// ``ModelContext/observe(_:sectionedBy:)``.
///
/// It follows the query's live results (``QueryObservation``, or ``ContextObservation`` through a
/// context) and sections each value. Through a store, a query over one entity without a window is
/// caught up from the records a commit changed, so a one-record save costs reading that record,
/// no fetch; sectioning the value then costs one pass over the results in memory (each model's
/// key, grouped by hash; no decoding, no read) and a diff of the sections whose rows changed
/// (unchanged sections cost one comparison). A key through a to-one reads the destinations the
/// results refer to with each value, so such sections refetch after every commit that touches the
/// query's entity or the destination's. A consumer slower than the changes gets coalesced values,
/// diffed against the value it holds.
public struct SectionedObservation<Model: PersistentModel, Key: Hashable & Comparable & Sendable>: AsyncSequence,
    Sendable
{
    public typealias Element = SectionedQueryResults<Model, Key>

    let key: SectionKey<Model, Key>
    let descending: Bool
    let snapshots: @Sendable () -> AsyncThrowingStream<QueryObservation<Model>.Snapshot, any Error>

    public func makeAsyncIterator() -> Iterator {
        Iterator(snapshots: snapshots().makeAsyncIterator(), key: key, descending: descending)
    }

    /// The query's plan (or why it has none: an invalid query, or a key through a property that is
    /// not a to-one) and what the sections read besides it.
    static func plan(_ query: Query<Model>, _ key: SectionKey<Model, Key>) -> (
        Result<FetchPlan, StrataError>, ObservedLookup?
    ) {
        if let through = key.through, case .failure(let error) = through.relationship { return (.failure(error), nil) }
        let plan = Result { try query.plan() }.mapError { $0 as? StrataError ?? StrataError(.invalidQuery, "\($0)") }
        return (plan, ObservedLookup(key))
    }

    /// Delivers the sections after each change.
    public struct Iterator: AsyncIteratorProtocol {
        var snapshots: AsyncThrowingStream<QueryObservation<Model>.Snapshot, any Error>.Iterator
        let key: SectionKey<Model, Key>
        let descending: Bool
        /// The rows of the value delivered last, section by section.
        var previous: [SectionRows<Key>] = []

        public mutating func next() async throws -> SectionedQueryResults<Model, Key>? {
            guard let snapshot = try await snapshots.next() else { return nil }
            let keys = try key.keys(snapshot.models, referenced: snapshot.referenced)
            let (results, rows) = SectionedResults.grouping(
                snapshot.models, keys: keys, rows: snapshot.keys, descending: descending)
            let diff = SectionedResultsDiff.between(previous, rows)
            previous = rows
            return SectionedQueryResults(results: results, diff: diff, token: snapshot.token)
        }
    }
}

extension Store {
    /// The live sections of `query` grouped by `key` (see ``SectionedObservation``): the sections,
    /// then new sections after each commit that can change them, with a diff of sections and rows.
    ///
    /// ```swift
    /// for try await value in store.observe(Query<Trip>.all.sorted(by: \.start), sectionedBy: .day(\.start)) {
    ///     render(value.sections, removingSections: value.diff.removedSections, moving: value.diff.movedRows)
    /// }
    /// ```
    public func observe<Model: PersistentModel, Key>(_ query: Query<Model>, sectionedBy key: SectionKey<Model, Key>)
        -> SectionedObservation<Model, Key>
    {
        let (plan, lookup) = SectionedObservation.plan(query, key)
        return SectionedObservation(key: key, descending: query.sectionsDescend) { [self] in
            QueryObservation<Model>.start(store: self, plan: plan, lookup: lookup)
        }
    }
}

extension ModelContext {
    /// The live sections of `query` as this context sees them, its pending changes included: new
    /// sections after every change staged here and every commit that can change them (see
    /// ``SectionedObservation``).
    public nonisolated func observe<Model: PersistentModel, Key>(
        _ query: Query<Model>, sectionedBy key: SectionKey<Model, Key>
    ) -> SectionedObservation<Model, Key> {
        let (plan, lookup) = SectionedObservation.plan(query, key)
        return SectionedObservation(key: key, descending: query.sectionsDescend) { [self] in
            ContextObservation<Model>.start(context: self, plan: plan, lookup: lookup)
        }
    }
}
