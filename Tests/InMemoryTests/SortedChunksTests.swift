import Foundation
import StrataConformance
import StrataStorage
import Testing

@testable import StrataInMemory

/// The ordered index's set against a plain sorted array, under seeded random inserts, removals and
/// bounded walks in both directions (the seed is printed on failure).
@Suite("In-memory: ordered index")
struct SortedChunksTests {
    @Test("matches a sorted array", arguments: [1, 2, 3, 4])
    func matchesASortedArray(_ seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var set = SortedChunks<Int>()
        var model: [Int] = []
        // A range of values a few times the chunk size, so chunks split, empty and vanish.
        let span = SortedChunks<Int>.maximumChunk * 8
        for step in 0..<6_000 {
            let value = Int.random(in: 0..<span, using: &random)
            if Bool.random(using: &random) || step < 1_500 {
                let inserted = set.insert(value)
                #expect(inserted == !model.contains(value), "seed \(seed) step \(step)")
                if inserted { model.insert(value, at: model.firstIndex { $0 > value } ?? model.count) }
            } else {
                let removed = set.remove(value)
                #expect(removed == model.contains(value), "seed \(seed) step \(step)")
                model.removeAll { $0 == value }
            }
            guard step % 500 == 0 else { continue }
            #expect(set.elements == model, "seed \(seed) step \(step)")
            #expect(set.count == model.count, "seed \(seed) step \(step)")
            for _ in 0..<20 {
                let lower = Bool.random(using: &random) ? Int.random(in: -5..<span + 5, using: &random) : nil
                let upper = Bool.random(using: &random) ? Int.random(in: -5..<span + 5, using: &random) : nil
                let expected = model.filter { value in
                    (lower.map { value >= $0 } ?? true) && (upper.map { value <= $0 } ?? true)
                }
                var ascending: [Int] = []
                set.walk(from: lower, through: upper) {
                    ascending.append($0)
                    return true
                }
                #expect(
                    ascending == expected,
                    "seed \(seed) step \(step) [\(String(describing: lower)), \(String(describing: upper))]")
                var descending: [Int] = []
                set.walk(from: lower, through: upper, ascending: false) {
                    descending.append($0)
                    return true
                }
                #expect(
                    descending == expected.reversed(),
                    "seed \(seed) step \(step) [\(String(describing: lower)), \(String(describing: upper))] descending")
                var firstThree: [Int] = []
                set.walk(from: lower, through: upper) {
                    firstThree.append($0)
                    return firstThree.count < 3
                }
                #expect(firstThree == Array(expected.prefix(3)), "seed \(seed) step \(step) stops when asked")
            }
            let probe = Int.random(in: 0..<span, using: &random)
            #expect(set.contains(probe) == model.contains(probe), "seed \(seed) step \(step)")
        }
    }

    @Test("removes many at once as one at a time would", arguments: [5, 6, 7, 8])
    func removesManyAtOnce(_ seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var set = SortedChunks<Int>()
        let span = SortedChunks<Int>.maximumChunk * 12
        for _ in 0..<(span / 2) { set.insert(Int.random(in: 0..<span, using: &random)) }
        var model = set.elements
        for round in 0..<30 {
            // Sets of every size and density: runs that empty whole chunks, scattered values,
            // absent values, duplicates, and values past either end.
            let size = [0, 3, 9, 40, 300, 2_000][round % 6]
            let start = Int.random(in: -10..<span, using: &random)
            let doomed = (0..<size).map { index in
                round % 2 == 0 ? start + index : Int.random(in: -10..<(span + 10), using: &random)
            }
            let expected = Set(doomed).intersection(model).count
            let removed = set.remove(contentsOf: doomed.shuffled(using: &random))
            model.removeAll(where: Set(doomed).contains)
            #expect(removed == expected, "seed \(seed) round \(round)")
            #expect(set.elements == model, "seed \(seed) round \(round)")
            #expect(set.count == model.count, "seed \(seed) round \(round)")
            #expect(set.chunks.allSatisfy { !$0.isEmpty }, "seed \(seed) round \(round): no empty chunk is kept")
            for value in doomed.prefix(20) { #expect(!set.contains(value), "seed \(seed) round \(round)") }
            guard round % 5 == 4 else { continue }
            for _ in 0..<500 {
                let value = Int.random(in: 0..<span, using: &random)
                if set.insert(value) { model.insert(value, at: model.firstIndex { $0 > value } ?? model.count) }
            }
        }
    }

    @Test("inserts many at once as one at a time would", arguments: [9, 10, 11, 12])
    func insertsManyAtOnce(_ seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var set = SortedChunks<Int>()
        var model: [Int] = []
        let span = SortedChunks<Int>.maximumChunk * 40
        for round in 0..<24 {
            // Batches small and large beside the stored count (each path), with duplicates inside
            // the batch and values already stored, some past either end.
            let size = [1, 20, 40, 300, 2_500, 6][round % 6]
            let batch = (0..<size).map { _ in Int.random(in: -10..<(span + 10), using: &random) }
            set.insert(contentsOf: batch)
            model = Array(Set(model).union(batch)).sorted()
            #expect(set.elements == model, "seed \(seed) round \(round)")
            #expect(set.count == model.count, "seed \(seed) round \(round)")
            #expect(set.chunks.allSatisfy { !$0.isEmpty && $0.count <= SortedChunks<Int>.maximumChunk })
            for value in batch.prefix(10) { #expect(set.contains(value), "seed \(seed) round \(round)") }
            // Single inserts and removals still work on the chunks a bulk insert made.
            for _ in 0..<50 {
                let value = Int.random(in: 0..<span, using: &random)
                if Bool.random(using: &random) {
                    if set.insert(value) { model.insert(value, at: model.firstIndex { $0 > value } ?? model.count) }
                } else if set.remove(value) {
                    model.removeAll { $0 == value }
                }
            }
            #expect(set.elements == model, "seed \(seed) round \(round) after single changes")
        }
    }

    @Test("sorts many record IDs in the contract's order", arguments: [13, 14])
    func sortsRecordIDsInTheContractsOrder(_ seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var uuids = (0..<2_000).map { _ in RecordID.uuid(random.uuid()) }
        // Equal high halves, so the low half decides; bytes at both extremes.
        let shared = random.uuid().uuid
        for low in [UInt8(0), 1, 127, 128, 255] {
            var bytes = shared
            bytes.15 = low
            bytes.8 = 255 - low
            uuids.append(.uuid(UUID(uuid: bytes)))
        }
        #expect(RecordIDSorting.sorted(uuids) == uuids.sorted(), "seed \(seed)")
        let mixed = uuids.prefix(50) + [.int(3), .string("b"), .int(-1), .string("a")]
        #expect(RecordIDSorting.sorted(Array(mixed)) == mixed.sorted(), "seed \(seed): other kinds sort as before")
        var set = SortedChunks<RecordID>()
        set.insert(contentsOf: uuids.shuffled(using: &random))
        #expect(set.elements == Array(Set(uuids)).sorted(), "seed \(seed)")
    }
}
