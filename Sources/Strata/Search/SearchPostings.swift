import StrataStorage

/// One record's entry in a word's list within one segment of a full-text index: where the word
/// occurs in each indexed attribute and how many words each attribute holds, or a tombstone
/// saying an older segment's entry for the record is gone.
struct SearchPosting: Sendable, Equatable {
    var id: RecordID
    /// Per indexed attribute, the word's positions (ascending); nil for a tombstone.
    var positions: [[Int]]?
    /// Per indexed attribute, how many words the record's text holds there (empty for a tombstone).
    var lengths: [Int]

    static func tombstone(_ id: RecordID) -> SearchPosting { SearchPosting(id: id, positions: nil, lengths: []) }

    var isTombstone: Bool { positions == nil }
}

/// One word's list being written, entry by entry in ID order, straight into the codec's bytes.
struct SearchListBuilder {
    private var body = BinaryWriter()
    private(set) var count = 0

    mutating func appendTombstone(_ id: RecordID) {
        body.recordID(id)
        body.byte(0)
        count += 1
    }

    /// The start of a record's live entry, the same in every word's list: the ID, the live flag
    /// and the word count per attribute — encoded once per record, copied into each list.
    static func liveHead(_ id: RecordID, lengths: [Int]) -> [UInt8] {
        var head = BinaryWriter()
        head.recordID(id)
        head.byte(1)
        for length in lengths { head.unsigned(UInt64(length)) }
        return head.bytes
    }

    /// A live entry: its head (``liveHead(_:lengths:)``), then the word's occurrences as
    /// (attribute, position) pairs in ascending order, per attribute a count and position deltas.
    mutating func appendLive(
        head: [UInt8], fields: Int, occurrences: some Collection<(field: Int, position: Int)>
    ) {
        body.bytes.append(contentsOf: head)
        var next = occurrences.startIndex
        for field in 0..<fields {
            var end = next
            while end != occurrences.endIndex, occurrences[end].field == field { end = occurrences.index(after: end) }
            body.unsigned(UInt64(occurrences.distance(from: next, to: end)))
            var previous = 0
            while next != end {
                let position = occurrences[next].position
                body.unsigned(UInt64(position - previous))
                previous = position
                next = occurrences.index(after: next)
            }
        }
        count += 1
    }

    func bytes(fields: Int) -> [UInt8] {
        var header = BinaryWriter()
        header.byte(SearchPostingCodec.format)
        header.unsigned(UInt64(fields))
        header.unsigned(UInt64(count))
        return header.bytes + body.bytes
    }
}

/// The bytes of one word's list in one segment: a format byte, the attribute count, the entry
/// count, then each entry in ID order — the ID, a live flag, and for a live entry each
/// attribute's word count, then each attribute's occurrence count and positions as deltas.
enum SearchPostingCodec {
    static let format: UInt8 = 1

    static func encode(_ postings: [SearchPosting], fields: Int) -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(format)
        writer.unsigned(UInt64(fields))
        writer.unsigned(UInt64(postings.count))
        for posting in postings {
            writer.recordID(posting.id)
            guard let positions = posting.positions else {
                writer.byte(0)
                continue
            }
            writer.byte(1)
            for field in 0..<fields {
                writer.unsigned(UInt64(field < posting.lengths.count ? posting.lengths[field] : 0))
            }
            for field in 0..<fields {
                let list = field < positions.count ? positions[field] : []
                writer.unsigned(UInt64(list.count))
                var previous = 0
                for position in list {
                    writer.unsigned(UInt64(position - previous))
                    previous = position
                }
            }
        }
        return writer.bytes
    }

    /// The entries, or ``StrataError/Code/corruptStore`` naming the entity, the index and `key`
    /// when the bytes are not a list this format wrote for `fields` attributes.
    static func decode(_ bytes: [UInt8], fields: Int, key: String, _ layout: SearchIndexLayout) throws
        -> [SearchPosting]
    {
        var reader = BinaryReader(bytes)
        do {
            let count = try header(&reader, fields: fields)
            var postings: [SearchPosting] = []
            postings.reserveCapacity(count)
            for _ in 0..<count {
                let id = try reader.recordID()
                switch try reader.byte() {
                case 0:
                    postings.append(.tombstone(id))
                case 1:
                    postings.append(try live(id, &reader, fields: fields))
                default:
                    throw reader.corrupt("unknown entry kind")
                }
            }
            guard reader.isAtEnd else { throw reader.corrupt("bytes after the last entry") }
            return postings
        } catch let error as StrataError {
            throw layout.damaged("the entries under \(key) are unreadable (\(error.message))")
        }
    }

    /// The format byte, the attribute count (the index's) and the entry count of a list.
    static func header(_ reader: inout BinaryReader, fields: Int) throws -> Int {
        guard try reader.byte() == format else { throw reader.corrupt("unknown format") }
        guard try reader.count() == fields else { throw reader.corrupt("attribute count differs from the index's") }
        let count = try reader.count()
        // Each entry takes at least two bytes: a count past that is damage, not a reservation.
        guard count <= reader.bytes.count / 2 else { throw reader.corrupt("entry count past the end") }
        return count
    }

    /// A word count or position: below 2³¹ (a text's words are counted in `Int` everywhere).
    static func number(_ reader: inout BinaryReader) throws -> Int {
        let value = try reader.unsigned()
        guard value < 1 << 31 else { throw reader.corrupt("implausible word count or position \(value)") }
        return Int(value)
    }

    private static func live(_ id: RecordID, _ reader: inout BinaryReader, fields: Int) throws -> SearchPosting {
        var lengths: [Int] = []
        lengths.reserveCapacity(fields)
        for _ in 0..<fields { lengths.append(try number(&reader)) }
        var positions: [[Int]] = []
        positions.reserveCapacity(fields)
        for field in 0..<fields {
            let count = try reader.count()
            guard count <= lengths[field] else { throw reader.corrupt("more occurrences than words") }
            var list: [Int] = []
            list.reserveCapacity(count)
            var position = 0
            for index in 0..<count {
                let delta = try number(&reader)
                position += delta
                guard (index == 0 || delta > 0), position < lengths[field] else {
                    throw reader.corrupt("a position out of order or past the text")
                }
                list.append(position)
            }
            positions.append(list)
        }
        return SearchPosting(id: id, positions: positions, lengths: lengths)
    }
}

/// A word's entries without positions, attribute counts flattened (`fields` per entry): what a
/// word or a prefix needs to be scored, decoded without building an array per entry.
struct SearchCounts: Sendable {
    var ids: [RecordID] = []
    var live: [Bool] = []
    /// Per entry, the word's occurrences in each attribute.
    var counts: [Int32] = []
    /// Per entry, each attribute's word count.
    var lengths: [Int32] = []

    var count: Int { ids.count }
}

extension SearchPostingCodec {
    /// The entries of a list as counts (positions skipped); damage as in ``decode(_:fields:key:_:)``.
    static func decodeCounts(_ bytes: [UInt8], fields: Int, key: String, _ layout: SearchIndexLayout) throws
        -> SearchCounts
    {
        var reader = BinaryReader(bytes)
        do {
            let count = try header(&reader, fields: fields)
            var result = SearchCounts()
            result.ids.reserveCapacity(count)
            result.live.reserveCapacity(count)
            result.counts.reserveCapacity(count * fields)
            result.lengths.reserveCapacity(count * fields)
            for _ in 0..<count {
                result.ids.append(try reader.recordID())
                switch try reader.byte() {
                case 0:
                    result.live.append(false)
                    for _ in 0..<fields {
                        result.counts.append(0)
                        result.lengths.append(0)
                    }
                case 1:
                    result.live.append(true)
                    let start = result.lengths.count
                    for _ in 0..<fields { result.lengths.append(Int32(try number(&reader))) }
                    for field in 0..<fields {
                        let occurrences = try reader.count()
                        guard occurrences <= Int(result.lengths[start + field]) else {
                            throw reader.corrupt("more occurrences than words")
                        }
                        result.counts.append(Int32(occurrences))
                        for _ in 0..<occurrences { _ = try reader.unsigned() }
                    }
                default:
                    throw reader.corrupt("unknown entry kind")
                }
            }
            guard reader.isAtEnd else { throw reader.corrupt("bytes after the last entry") }
            return result
        } catch let error as StrataError {
            throw layout.damaged("the entries under \(key) are unreadable (\(error.message))")
        }
    }
}
