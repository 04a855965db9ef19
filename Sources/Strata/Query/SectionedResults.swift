import Foundation

/// One section: its key and its models, in the query's order.
public struct Section<Model: PersistentModel, Key: Hashable & Comparable & Sendable>: Sendable {
    /// The section's key (nil: the models without one).
    public let key: Key?
    /// The section's models, in the query's order.
    public let models: [Model]
    /// How many models the section holds.
    public var count: Int { models.count }
}

/// A query's results grouped into sections: sections ordered by key — ascending, the section
/// without a key first; descending (that section last) when the query's first sort key is
/// descending — and each section's models in the query's order. Sections are ordered by their
/// keys, so a section never moves: between two values of an observation, sections are only
/// inserted and deleted (see ``SectionedResultsDiff``).
public struct SectionedResults<Model: PersistentModel, Key: Hashable & Comparable & Sendable>: Sendable {
    /// The sections, in order; none is empty.
    public let sections: [Section<Model, Key>]
    /// Every model, section after section.
    public var models: [Model] { sections.flatMap(\.models) }

    /// `models` (in the query's order) grouped by `key`; `descending` orders the sections by key
    /// descending. A key through a to-one (`SectionKey.related(_:_:)`) needs the destinations,
    /// which only a read has: here it is `invalidQuery` — use ``ModelReading/fetch(_:sectionedBy:)``.
    public init(_ models: [Model], by key: SectionKey<Model, Key>, descending: Bool = false) throws {
        guard key.through == nil else {
            throw StrataError(
                .invalidQuery, "sections keyed through a to-one need its destinations: fetch(_:sectionedBy:) reads them"
            )
        }
        self = Self.grouping(models, keys: try key.keys(models, referenced: [:]), descending: descending).results
    }

    init(sections: [Section<Model, Key>]) { self.sections = sections }

    /// `models` grouped by `keys` (one per model), with the (ID, version) rows of each section
    /// taken from `rows` when given (what an observation diffs): one hash lookup per run of equal
    /// keys, then each model appended to its section's array by offset.
    static func grouping(
        _ models: [Model], keys: [Key?], rows: [(id: RecordID, version: Int64)]? = nil, descending: Bool
    ) -> (results: SectionedResults, rows: [SectionRows<Key>]) {
        var order: [Key?] = []
        var index: [Key?: Int] = [:]
        var sectionOf: [Int] = []
        sectionOf.reserveCapacity(models.count)
        var last: (key: Key?, section: Int)?
        for key in keys {
            if let last, last.key == key {
                sectionOf.append(last.section)
                continue
            }
            let section = index[key] ?? order.count
            if section == order.count {
                index[key] = section
                order.append(key)
            }
            sectionOf.append(section)
            last = (key, section)
        }
        var counts = [Int](repeating: 0, count: order.count)
        for section in sectionOf { counts[section] += 1 }
        var grouped: [[Model]] = counts.map { count in
            var models: [Model] = []
            models.reserveCapacity(count)
            return models
        }
        for (offset, section) in sectionOf.enumerated() { grouped[section].append(models[offset]) }
        var groupedRows: [[(id: RecordID, version: Int64)]] = Array(repeating: [], count: order.count)
        if let rows {
            for section in order.indices { groupedRows[section].reserveCapacity(counts[section]) }
            for (offset, section) in sectionOf.enumerated() { groupedRows[section].append(rows[offset]) }
        }
        let sorted = order.indices.sorted { a, b in
            switch (order[a], order[b]) {
            case (nil, nil): return false
            case (nil, _): return !descending
            case (_, nil): return descending
            case (let a?, let b?): return descending ? a > b : a < b
            }
        }
        return (
            SectionedResults(sections: sorted.map { Section(key: order[$0], models: grouped[$0]) }),
            sorted.map { SectionRows(key: order[$0], rows: groupedRows[$0]) }
        )
    }
}

extension Query {
    /// Whether this query's sections are in descending key order: its first sort key descends.
    var sectionsDescend: Bool { sort.first.map { !$0.ascending } ?? false }
}

/// The (ID, version) rows of one section: what an observation diffs.
struct SectionRows<Key: Hashable & Sendable>: Sendable {
    let key: Key?
    let rows: [(id: RecordID, version: Int64)]
}

extension SectionKey {
    /// `records` (a query's results, read in `transaction`) decoded and grouped, destinations of a
    /// key through a to-one read in the same transaction.
    func sectioned(_ records: [Record], query: Query<Model>, in transaction: any StorageReadTransaction) throws
        -> SectionedResults<Model, Key>
    {
        let models = try KeyPathDecoding.decodeAll(Model.self, records)
        let keys = try keys(models, referenced: try referencedRecords(records, in: transaction))
        return SectionedResults.grouping(models, keys: keys, descending: query.sectionsDescend).results
    }
}

extension ModelReading {
    /// A query's results grouped into sections by `key`: one fetch, then one pass over its models.
    /// A key through a to-one needs the destinations: ``Repository`` and ``ContextRepository`` read
    /// them in the same read; this default (what a test double gets) refuses it (`invalidQuery`).
    public func fetch<Key>(_ query: Query<Model>, sectionedBy key: SectionKey<Model, Key>) async throws
        -> SectionedResults<Model, Key>
    {
        try SectionedResults(try await fetch(query), by: key, descending: query.sectionsDescend)
    }
}
