import BenchmarkWorkloads

/// The untimed preparation of one side of a workload, which returns the run to time; the run returns
/// a count every library must agree on.
typealias Prepare = @Sendable () async throws -> @Sendable () async throws -> Int

/// One library doing the peer table's five workloads, each the way that library's documentation
/// shows it.
struct PeerLibrary: Sendable {
    var name: String
    /// Opens a new database, inserts 100k records in one transaction, closes it.
    var insert: Prepare
    /// Every record of 100k as models, in ID order.
    var fetchAll: Prepare
    /// 100k random point fetches by ID (the same probes for every library).
    var pointFetches: Prepare
    /// The indexed category, sorted by score descending then ID, limited to 100.
    var indexedQuery: Prepare
    /// One parent and its 10k children deleted in one transaction.
    var cascade: Prepare

    /// The workloads in the table's order, by the name their row prints.
    var workloads: [(String, Prepare)] {
        [
            ("insert 100k (one transaction)", insert), ("fetch all 100k as models", fetchAll),
            ("100k point fetches", pointFetches), ("indexed query + sort + limit 100", indexedQuery),
            ("cascade: 1 parent, 10k children", cascade),
        ]
    }
}
