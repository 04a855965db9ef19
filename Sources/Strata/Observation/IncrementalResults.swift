import Foundation

/// The live results of a query over one entity with no limit and no offset, kept up to date from
/// the records each commit changed instead of by refetching: O(k log n) comparisons for k changed
/// records (plus moving the array's tail), with the diff computed as it goes.
///
/// Such a query's results are exactly the entity's records that match the predicate, in the sort
/// order with the ID as the last key — a total order — so a changed record's old place is found by
/// binary search on its old values and its new place on its new ones, and records nobody changed
/// keep their relative order.
struct IncrementalResults<Model: PersistentModel>: Sendable {
    private(set) var records: [Record]
    private(set) var models: [Model]
    private(set) var keys: [(id: RecordID, version: Int64)]
    private var byID: [RecordID: Record]
    let sort: [SortKey]

    init(records: [Record], models: [Model], sort: [SortKey]) {
        self.records = records
        self.models = models
        self.keys = records.map { ($0.id, $0.version) }
        self.sort = sort
        byID = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether a query can be kept this way: one entity, no window, no related filter.
    static func applies(to plan: FetchPlan, _ dependencies: ObservedDependencies) -> Bool {
        plan.limit == nil && plan.offset == 0 && dependencies.relatedEntities.isEmpty
    }

    var count: Int { records.count }

    /// Applies one catch-up: `changed` are the IDs of the entity's records touched since the last
    /// value; `matching` those of them that exist and match the predicate now. Returns the diff
    /// from the previous value (empty when the results did not change).
    mutating func apply(changed: Set<RecordID>, matching: [Record]) throws -> ResultsDiff {
        // Where the changed records were: found by their old values.
        var leaving: [(offset: Int, id: RecordID, version: Int64)] = []
        for id in changed {
            guard let old = byID[id], let offset = index(of: old) else { continue }
            leaving.append((offset, id, old.version))
        }
        leaving.sort { $0.offset < $1.offset }
        for entry in leaving.reversed() {
            records.remove(at: entry.offset)
            models.remove(at: entry.offset)
            keys.remove(at: entry.offset)
            byID.removeValue(forKey: entry.id)
        }
        // Where they go: inserted in order, so each one's place accounts for those before it.
        let arriving = matching.sorted(by: precedes)
        let arrivingModels = try KeyPathDecoding.decodeAll(Model.self, arriving)
        for (record, model) in zip(arriving, arrivingModels) {
            let offset = insertionIndex(of: record)
            records.insert(record, at: offset)
            models.insert(model, at: offset)
            keys.insert((record.id, record.version), at: offset)
            byID[record.id] = record
        }
        var placed: [RecordID: Int] = [:]
        for record in arriving { placed[record.id] = index(of: record) }
        return Self.diff(leaving: leaving, placed: placed, arriving: arriving)
    }

    /// The diff from the value before `apply(changed:matching:)` to the one after. A record in
    /// both stays in place when as many unchanged records precede it before and after, and the
    /// records staying in place keep their order among themselves; any other record in both moved.
    private static func diff(
        leaving: [(offset: Int, id: RecordID, version: Int64)], placed: [RecordID: Int], arriving: [Record]
    ) -> ResultsDiff {
        var diff = ResultsDiff()
        let oldOffsets = leaving.map(\.offset)  // ascending
        let newOffsets = placed.values.sorted()
        func before(_ offset: Int, in sorted: [Int]) -> Int {
            var low = 0
            var high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if sorted[middle] < offset { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let versions = Dictionary(arriving.map { ($0.id, $0.version) }, uniquingKeysWith: { first, _ in first })
        var staying: [(old: Int, new: Int, modified: Bool)] = []
        var moving: [(old: Int, new: Int, modified: Bool)] = []
        for entry in leaving {
            guard let new = placed[entry.id] else {
                diff.removed.insert(entry.offset)
                continue
            }
            let modified = versions[entry.id] != entry.version
            let unchangedBeforeOld = entry.offset - before(entry.offset, in: oldOffsets)
            let unchangedBeforeNew = new - before(new, in: newOffsets)
            if unchangedBeforeOld == unchangedBeforeNew {
                staying.append((entry.offset, new, modified))
            } else {
                moving.append((entry.offset, new, modified))
            }
        }
        // `staying` is in old order; if their new offsets do not increase, call them all moves.
        if zip(staying, staying.dropFirst()).contains(where: { $0.new > $1.new }) {
            moving += staying
            staying = []
        }
        for entry in staying where entry.modified { diff.modified.insert(entry.new) }
        for entry in moving.sorted(by: { $0.new < $1.new }) {
            diff.removed.insert(entry.old)
            diff.inserted.insert(entry.new)
            diff.moved.append(ResultsDiff.Move(from: entry.old, to: entry.new))
            if entry.modified { diff.modified.insert(entry.new) }
        }
        let wasThere = Set(leaving.map(\.id))
        for record in arriving where !wasThere.contains(record.id) {
            if let offset = placed[record.id] { diff.inserted.insert(offset) }
        }
        return diff
    }

    /// The contract's order: the sort keys (nulls first ascending), then the ID.
    private func precedes(_ a: Record, _ b: Record) -> Bool {
        for key in sort {
            switch Value.sortOrder(a[key.property], b[key.property]) {
            case .same: continue
            case .ascending: return key.ascending
            case .descending: return !key.ascending
            }
        }
        return a.id < b.id
    }

    /// The first offset whose record does not precede `record`.
    private func insertionIndex(of record: Record) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(records[middle], record) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The offset of the record with `record`'s ID, found by `record`'s values.
    private func index(of record: Record) -> Int? {
        let offset = insertionIndex(of: record)
        return offset < records.count && records[offset].id == record.id ? offset : nil
    }
}
