import StrataStorage

/// A sorted set kept as a list of sorted chunks: a two-level B-tree in effect.
///
/// Finding, inserting and removing cost a binary search over the chunks plus one within a chunk,
/// and a shift of at most one chunk — never a move of the whole set — so an index of a million
/// entries stays cheap to keep. Walking in order from a bound is a seek, then sequential. Being a
/// value of arrays, a snapshot shares every chunk with the live set until one is written to, and
/// then copies only that chunk.
struct SortedChunks<Element: Comparable & Sendable>: Sendable {
    private(set) var chunks: [[Element]] = []
    private(set) var count = 0

    /// Chunks split past this size; small enough that an insert's shift is cheap.
    static var maximumChunk: Int { 256 }

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The first chunk whose last element is not below `element` (`chunks.count` if none).
    private func chunk(for element: Element, from start: Int = 0) -> Int {
        var low = start
        var high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle][chunks[middle].count - 1] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The first position in `chunk` whose element is not below `element`.
    private static func position(of element: Element, in chunk: [Element]) -> Int {
        var low = 0
        var high = chunk.count
        while low < high {
            let middle = (low + high) / 2
            if chunk[middle] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func contains(_ element: Element) -> Bool {
        let index = chunk(for: element)
        guard index < chunks.count else { return false }
        let position = Self.position(of: element, in: chunks[index])
        return position < chunks[index].count && chunks[index][position] == element
    }

    /// Inserts `element`; `false` when it was already present.
    @discardableResult
    mutating func insert(_ element: Element) -> Bool {
        if chunks.isEmpty {
            chunks = [[element]]
            count = 1
            return true
        }
        let index = min(chunk(for: element), chunks.count - 1)
        let position = Self.position(of: element, in: chunks[index])
        if position < chunks[index].count && chunks[index][position] == element { return false }
        chunks[index].insert(element, at: position)
        count += 1
        if chunks[index].count > Self.maximumChunk {
            let upper = Array(chunks[index][(Self.maximumChunk / 2)...])
            chunks[index].removeSubrange((Self.maximumChunk / 2)...)
            chunks.insert(upper, at: index + 1)
        }
        return true
    }

    /// Removes `element`; `false` when it was absent.
    /// Inserts many elements (those already present are skipped). When they are many beside the
    /// stored ones — a save of new records — they are sorted once and merged with the stored ones
    /// in one pass into fresh chunks, instead of a binary search and an array insert each.
    mutating func insert(contentsOf elements: [Element]) {
        guard elements.count >= 32, elements.count * 4 >= count else {
            for element in elements { insert(element) }
            return
        }
        let incoming =
            (elements as? [RecordID]).flatMap { RecordIDSorting.sorted($0) as? [Element] } ?? elements.sorted()
        var merged: [Element] = []
        merged.reserveCapacity(count + incoming.count)
        var next = 0
        for stored in chunks.joined() {
            while next < incoming.count, incoming[next] < stored {
                if merged.last != incoming[next] { merged.append(incoming[next]) }
                next += 1
            }
            while next < incoming.count, incoming[next] == stored { next += 1 }
            merged.append(stored)
        }
        for element in incoming[next...] where merged.last != element { merged.append(element) }
        // Chunks three-quarters full: room for later inserts before a split.
        let size = Self.maximumChunk * 3 / 4
        chunks = stride(from: 0, to: merged.count, by: size).map { Array(merged[$0..<min($0 + size, merged.count)]) }
        count = merged.count
    }

    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        let index = chunk(for: element)
        guard index < chunks.count else { return false }
        let position = Self.position(of: element, in: chunks[index])
        guard position < chunks[index].count && chunks[index][position] == element else { return false }
        chunks[index].remove(at: position)
        count -= 1
        if chunks[index].isEmpty { chunks.remove(at: index) }
        return true
    }

    /// Removes every element of `elements` that is present, each chunk rebuilt once for all the
    /// elements it loses instead of shifted once per element (a cascade removes thousands of IDs
    /// at once); returns how many were removed.
    @discardableResult
    mutating func remove(contentsOf elements: [Element]) -> Int {
        if elements.count < 8 { return elements.reduce(0) { $0 + (remove($1) ? 1 : 0) } }
        let doomed = elements.sorted()
        var removed = 0
        var next = 0
        var searched = 0  // chunks before this one may be empty now: the search starts after them
        while next < doomed.count {
            let index = chunk(for: doomed[next], from: searched)
            searched = index + 1
            guard index < chunks.count, let last = chunks[index].last else { break }
            var end = next
            while end < doomed.count && doomed[end] <= last { end += 1 }
            var kept: [Element] = []
            kept.reserveCapacity(chunks[index].count)
            var cursor = next
            for element in chunks[index] {
                while cursor < end && doomed[cursor] < element { cursor += 1 }
                if cursor < end && doomed[cursor] == element {
                    removed += 1
                    cursor += 1
                } else {
                    kept.append(element)
                }
            }
            chunks[index] = kept
            next = end
        }
        chunks.removeAll { $0.isEmpty }
        count -= removed
        return removed
    }

    /// Calls `body` with the elements from `lower` up to `upper` (both inclusive, `nil` unbounded),
    /// ascending or descending, until it returns `false`.
    func walk(
        from lower: Element? = nil, through upper: Element? = nil, ascending: Bool = true,
        _ body: (Element) throws -> Bool
    ) rethrows {
        if ascending {
            var index = lower.map { chunk(for: $0) } ?? 0
            var position =
                lower.flatMap { bound in index < chunks.count ? Self.position(of: bound, in: chunks[index]) : nil } ?? 0
            while index < chunks.count {
                let current = chunks[index]
                while position < current.count {
                    let element = current[position]
                    if let upper, upper < element { return }
                    guard try body(element) else { return }
                    position += 1
                }
                index += 1
                position = 0
            }
        } else {
            // Start at the last element not above `upper`.
            var index: Int
            var position: Int
            if let upper {
                index = chunk(for: upper)
                if index == chunks.count {
                    index -= 1
                    position = index >= 0 ? chunks[index].count - 1 : -1
                } else {
                    let found = Self.position(of: upper, in: chunks[index])
                    position = found < chunks[index].count && chunks[index][found] == upper ? found : found - 1
                }
            } else {
                index = chunks.count - 1
                position = index >= 0 ? chunks[index].count - 1 : -1
            }
            while index >= 0 {
                let current = chunks[index]
                while position >= 0 {
                    let element = current[position]
                    if let lower, element < lower { return }
                    guard try body(element) else { return }
                    position -= 1
                }
                index -= 1
                if index >= 0 { position = chunks[index].count - 1 }
            }
        }
    }

    /// Every element, ascending.
    var elements: [Element] {
        chunks.count == 1 ? chunks[0] : Array(chunks.joined())
    }
}
