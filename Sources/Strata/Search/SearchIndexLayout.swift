import StrataStorage

/// Where one full-text index lives in a store's metadata (every backend keeps it there, in the
/// same transactions as the records):
///
/// - `<prefix>stats`: the record count, each attribute's total word count, and the live
///   segments (``SearchIndexStats``);
/// - `<prefix>t/<word> <segment>`: the word's entries written by one segment;
/// - `<prefix>s/<segment>`: the words a segment holds (what a merge reads).
///
/// `<prefix>` is `strata.search.` then the entity's and the index's names, each after its
/// length, so no name can run into another's keys. A word never holds a space, so
/// `<prefix>t/<word> ` is exactly one word's entries and `<prefix>t/<start>` every word
/// starting so.
struct SearchIndexLayout: Sendable {
    let entity: String
    let index: String
    let prefix: String

    init(entity: String, index: String) {
        self.entity = entity
        self.index = index
        prefix = MetadataKeys.searchPrefix + "\(entity.utf8.count).\(entity).\(index.utf8.count).\(index)/"
    }

    /// Every key of every full-text index of `entity`.
    static func entityPrefix(_ entity: String) -> String {
        MetadataKeys.searchPrefix + "\(entity.utf8.count).\(entity)."
    }

    var stats: String { prefix + "stats" }
    var directoryPrefix: String { prefix + "s/" }
    var wordsPrefix: String { prefix + "t/" }

    func directory(_ segment: UInt64) -> String { directoryPrefix + Self.hex(segment) }
    func entries(_ word: String, _ segment: UInt64) -> String { wordsPrefix + word + " " + Self.hex(segment) }
    func entriesPrefix(_ word: String) -> String { wordsPrefix + word + " " }
    func wordsStarting(_ start: String) -> String { wordsPrefix + start }

    /// The word and segment of an entries key under this index, or nil for another key.
    func parseEntries(_ key: String) -> (word: String, segment: UInt64)? {
        guard key.hasPrefix(wordsPrefix), let space = key.lastIndex(of: " ") else { return nil }
        let start = key.index(key.startIndex, offsetBy: wordsPrefix.count)
        guard start <= space, let segment = UInt64(key[key.index(after: space)...], radix: 16) else { return nil }
        return (String(key[start..<space]), segment)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    func damaged(_ what: String) -> StrataError {
        StrataError(.corruptStore, entity: entity, "full-text index \(index) of \(entity): \(what)")
    }
}

/// An index's counts and live segments. Segments are written one per save and merged eight at a
/// time into the next level; a lower level is newer than a higher one, and within a level a
/// larger number is newer.
struct SearchIndexStats: Sendable, Equatable {
    struct Segment: Sendable, Equatable {
        var id: UInt64
        var level: Int
    }

    var documents = 0
    var totals: [Int]
    var nextSegment: UInt64 = 1
    var segments: [Segment] = []

    init(fields: Int) { totals = Array(repeating: 0, count: fields) }

    /// Segments newest first.
    var byRecency: [Segment] {
        segments.sorted { ($0.level, $1.id) < ($1.level, $0.id) }
    }

    func encoded() -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(1)
        writer.unsigned(UInt64(documents))
        writer.unsigned(UInt64(totals.count))
        for total in totals { writer.unsigned(UInt64(total)) }
        writer.unsigned(nextSegment)
        writer.unsigned(UInt64(segments.count))
        for segment in segments {
            writer.unsigned(segment.id)
            writer.unsigned(UInt64(segment.level))
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8], fields: Int, _ layout: SearchIndexLayout) throws -> SearchIndexStats {
        var reader = BinaryReader(bytes)
        do {
            guard try reader.byte() == 1 else { throw reader.corrupt("unknown format") }
            var stats = SearchIndexStats(fields: fields)
            stats.documents = Int(clamping: try reader.unsigned())
            guard try reader.count() == fields else { throw reader.corrupt("attribute count differs from the index's") }
            stats.totals = try (0..<fields).map { _ in Int(clamping: try reader.unsigned()) }
            stats.nextSegment = try reader.unsigned()
            let count = try reader.count()
            for _ in 0..<count {
                let id = try reader.unsigned()
                let level = try reader.unsigned()
                guard id < stats.nextSegment, level < 64 else { throw reader.corrupt("a segment out of range") }
                stats.segments.append(Segment(id: id, level: Int(level)))
            }
            guard reader.isAtEnd else { throw reader.corrupt("bytes after the segments") }
            return stats
        } catch let error as StrataError {
            throw layout.damaged("its statistics are unreadable (\(error.message))")
        }
    }

    static func read(_ layout: SearchIndexLayout, fields: Int, from transaction: any StorageReadTransaction) throws
        -> SearchIndexStats
    {
        guard let bytes = try transaction.metadata(layout.stats) else { return SearchIndexStats(fields: fields) }
        return try decode(bytes, fields: fields, layout)
    }
}
