import Foundation

/// How an observed result changed between two deliveries, keyed by record ID.
///
/// Offsets in `removed` are in the previous value; offsets in `inserted` and `modified` are
/// in the new one. A record that moved is both removed (at its old offset) and inserted (at its
/// new one), and also listed in `moved`; a record whose version changed in place is in
/// `modified`. Applying the diff — remove, then insert, then replace the modified — turns the
/// previous value into the new one (`apply(to:new:)`).
public struct ResultsDiff: Sendable, Hashable {
    /// A record that changed position: its offset in the previous value and in the new one.
    public struct Move: Sendable, Hashable {
        /// The record's offset in the previous results.
        public var from: Int
        /// The record's offset in the new results.
        public var to: Int

        /// A move from offset `from` in the previous value to offset `to` in the new one.
        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    /// Offsets in the previous value of records gone from the new one, or moved.
    public var removed = IndexSet()
    /// Offsets in the new value of records that were not in the previous one, or moved.
    public var inserted = IndexSet()
    /// Records in both values whose position relative to the others changed.
    public var moved: [Move] = []
    /// Offsets in the new value of records in both whose version changed (moved ones included).
    public var modified = IndexSet()

    /// Whether nothing changed.
    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && modified.isEmpty }

    /// The diff from `previous` to `current`, each a list of (ID, version) in result order: a keyed
    /// diff in O(n log n) — the records kept in place are the longest run whose previous offsets
    /// increase, and every other kept record is a move.
    static func between(_ previous: [(id: RecordID, version: Int64)], _ current: [(id: RecordID, version: Int64)])
        -> ResultsDiff
    {
        var diff = ResultsDiff()
        var previousOffset: [RecordID: Int] = [:]
        previousOffset.reserveCapacity(previous.count)
        for (offset, entry) in previous.enumerated() { previousOffset[entry.id] = offset }
        var kept: [(new: Int, old: Int)] = []
        var present = Set<RecordID>()
        present.reserveCapacity(current.count)
        for (offset, entry) in current.enumerated() {
            present.insert(entry.id)
            if let old = previousOffset[entry.id] {
                kept.append((offset, old))
                if previous[old].version != entry.version { diff.modified.insert(offset) }
            } else {
                diff.inserted.insert(offset)
            }
        }
        for (offset, entry) in previous.enumerated() where !present.contains(entry.id) { diff.removed.insert(offset) }
        // Longest increasing subsequence of old offsets (patience sorting): those stay.
        var tails: [Int] = []  // index into `kept` of the smallest tail of each length
        var parent = [Int](repeating: -1, count: kept.count)
        for (index, pair) in kept.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if kept[tails[middle]].old < pair.old { low = middle + 1 } else { high = middle }
            }
            if low > 0 { parent[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var staying = Set<Int>()
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            staying.insert(cursor)
            cursor = parent[cursor]
        }
        for (index, pair) in kept.enumerated() where !staying.contains(index) {
            diff.moved.append(Move(from: pair.old, to: pair.new))
            diff.removed.insert(pair.old)
            diff.inserted.insert(pair.new)
        }
        return diff
    }

    /// `previous` with this diff applied, taking inserted and modified elements from `new`: equal
    /// to `new` when the diff was computed between the two.
    public func apply<Element>(to previous: [Element], new: [Element]) -> [Element] {
        var result = previous
        for offset in removed.reversed() where offset < result.count { result.remove(at: offset) }
        for offset in inserted where offset <= result.count && offset < new.count {
            result.insert(new[offset], at: offset)
        }
        for offset in modified where offset < result.count && offset < new.count { result[offset] = new[offset] }
        return result
    }

    /// The same change as a `CollectionDifference` (removals and insertions; a move is associated
    /// with its removal; a record modified in place is removed and inserted at its offset).
    public func collectionDifference<Element>(from previous: [Element], to new: [Element]) -> CollectionDifference<
        Element
    >? {
        let movedFrom = Dictionary(moved.map { ($0.from, $0.to) }, uniquingKeysWith: { a, _ in a })
        let movedTo = Dictionary(moved.map { ($0.to, $0.from) }, uniquingKeysWith: { a, _ in a })
        let inPlace = IndexSet(modified.filter { !inserted.contains($0) })
        // Offsets of records modified in place, in the previous value.
        var previousOfInPlace = IndexSet()
        let survivors = previous.indices.filter { !removed.contains($0) }
        let newKept = new.indices.filter { !inserted.contains($0) }
        for (old, current) in zip(survivors, newKept) where inPlace.contains(current) { previousOfInPlace.insert(old) }
        var changes: [CollectionDifference<Element>.Change] = []
        for offset in removed.union(previousOfInPlace) where offset < previous.count {
            changes.append(.remove(offset: offset, element: previous[offset], associatedWith: movedFrom[offset]))
        }
        for offset in inserted.union(inPlace) where offset < new.count {
            changes.append(.insert(offset: offset, element: new[offset], associatedWith: movedTo[offset]))
        }
        return CollectionDifference(changes)
    }
}
