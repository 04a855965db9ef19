import StrataStorage

/// The records a search matches, in ID order, each with its relevance score.
struct SearchMatches: Sendable {
    var ids: [RecordID] = []
    var scores: [Double] = []

    /// IDs ranked: highest score first, ties by ID ascending.
    var ranked: [RecordID] {
        ids.indices.sorted(by: precedes).map { ids[$0] }
    }

    /// The score of `id`, nil when it is not a match.
    func score(of id: RecordID) -> Double? {
        ids.firstIndex(of: id).map { scores[$0] }
    }

    /// The matches `isIncluded` accepts, by score and ID.
    func filter(_ isIncluded: (Double, RecordID) -> Bool) -> SearchMatches {
        var kept = SearchMatches()
        for index in ids.indices where isIncluded(scores[index], ids[index]) {
            kept.ids.append(ids[index])
            kept.scores.append(scores[index])
        }
        return kept
    }

    /// The first `count` of ``ranked``, selected without sorting every match.
    func top(_ count: Int) -> [RecordID] {
        guard count < ids.count else { return ranked }
        // A bounded heap whose root is the worst entry kept.
        var heap: [Int] = []
        heap.reserveCapacity(count + 1)
        func worse(_ a: Int, _ b: Int) -> Bool { precedes(b, a) }
        func siftUp(_ start: Int) {
            var child = start
            while child > 0 {
                let parent = (child - 1) / 2
                guard worse(heap[child], heap[parent]) else { return }
                heap.swapAt(child, parent)
                child = parent
            }
        }
        func siftDown() {
            var parent = 0
            while true {
                let left = 2 * parent + 1
                guard left < heap.count else { return }
                var worst = left
                if left + 1 < heap.count, worse(heap[left + 1], heap[left]) { worst = left + 1 }
                guard worse(heap[worst], heap[parent]) else { return }
                heap.swapAt(worst, parent)
                parent = worst
            }
        }
        for index in ids.indices {
            if heap.count < count {
                heap.append(index)
                siftUp(heap.count - 1)
            } else if count > 0, precedes(index, heap[0]) {
                heap[0] = index
                siftDown()
            }
        }
        return heap.sorted(by: precedes).map { ids[$0] }
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        scores[a] != scores[b] ? scores[a] > scores[b] : ids[a] < ids[b]
    }
}
