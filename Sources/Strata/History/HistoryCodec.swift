import Foundation

/// The stored form of a ``HistoryTransaction``: compact, versioned binary (history is written on
/// every save, so its encoding is on the hot path; JSON was half the cost of a large save).
///
/// Format 2 (written): `0x02`, token (i64), timestamp (f64 bits), author, context name (optional
/// strings); a string table (count, strings); a table of property-name lists (count, then per
/// list its length and string indexes); then the change count and per change: kind (u8), entity
/// (string index), ID, version (i64), name list index. Entity and property names are written
/// once per entry instead of once per change: an insert of 100k ten-property records carried a
/// megabyte of repeated names per 10k records, as much as the records themselves.
///
/// Format 1 (still read): the same header, then per change: kind, entity, ID, version, property
/// count and names, each string inline.
///
/// Integers are little-endian varints (zigzag for signed); strings are length-prefixed UTF-8.
enum HistoryCodec {
    static let formatVersion: UInt8 = 2

    static func encode(_ entry: HistoryTransaction) -> [UInt8] {
        var strings: [String] = []
        var stringIndex: [String: Int] = [:]
        func intern(_ text: String) -> Int {
            if let index = stringIndex[text] { return index }
            stringIndex[text] = strings.count
            strings.append(text)
            return strings.count - 1
        }
        var lists: [[Int]] = []
        var listIndex: [[String]: Int] = [:]
        var changes: [(entity: Int, list: Int)] = []
        changes.reserveCapacity(entry.changes.count)
        for change in entry.changes {
            let entity = intern(change.entity)
            let list: Int
            if let known = listIndex[change.changedProperties] {
                list = known
            } else {
                list = lists.count
                listIndex[change.changedProperties] = list
                lists.append(change.changedProperties.map(intern))
            }
            changes.append((entity, list))
        }
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(64 + entry.changes.count * 24)
        writer.byte(formatVersion)
        writer.signed(entry.token.value)
        writer.unsigned(entry.timestamp.timeIntervalSince1970.bitPattern)
        writer.optionalString(entry.author)
        writer.optionalString(entry.contextName)
        writer.unsigned(UInt64(strings.count))
        for text in strings { writer.string(text) }
        writer.unsigned(UInt64(lists.count))
        for list in lists {
            writer.unsigned(UInt64(list.count))
            for index in list { writer.unsigned(UInt64(index)) }
        }
        writer.unsigned(UInt64(entry.changes.count))
        for (change, indexes) in zip(entry.changes, changes) {
            writer.byte(change.kind == .insert ? 0 : change.kind == .update ? 1 : 2)
            writer.unsigned(UInt64(indexes.entity))
            writer.recordID(change.id)
            writer.signed(change.version)
            writer.unsigned(UInt64(indexes.list))
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> HistoryTransaction {
        var reader = BinaryReader(bytes)
        // Every entry of a store of format 1 is written with this format byte: any other is damage.
        guard try reader.byte() == formatVersion else { throw reader.corrupt("unknown history entry format") }
        let token = HistoryToken(try reader.signed())
        let timestamp = Date(timeIntervalSince1970: Double(bitPattern: try reader.unsigned()))
        let author = try reader.optionalString()
        let contextName = try reader.optionalString()
        return try decodeChanges(
            &reader,
            HistoryTransaction(
                token: token, timestamp: timestamp, author: author, contextName: contextName, changes: []))
    }

    private static func changeKind(_ reader: inout BinaryReader) throws -> HistoryChange.Kind {
        switch try reader.byte() {
        case 0: return .insert
        case 1: return .update
        case 2: return .delete
        default: throw reader.corrupt("unknown change kind")
        }
    }

    /// Format 2's tables and changes.
    private static func decodeChanges(_ reader: inout BinaryReader, _ header: HistoryTransaction) throws
        -> HistoryTransaction
    {
        let strings = try (0..<reader.count()).map { _ in try reader.string() }
        func string(_ index: UInt64) throws -> String {
            guard index < UInt64(strings.count) else { throw reader.corrupt("string index \(index) out of range") }
            return strings[Int(index)]
        }
        let lists = try (0..<reader.count()).map { _ in
            try (0..<reader.count()).map { _ in try string(reader.unsigned()) }
        }
        let count = try reader.count()
        var changes: [HistoryChange] = []
        changes.reserveCapacity(count)
        for _ in 0..<count {
            let kind = try changeKind(&reader)
            let entity = try string(reader.unsigned())
            let id = try reader.recordID()
            let version = try reader.signed()
            let list = try reader.unsigned()
            guard list < UInt64(lists.count) else { throw reader.corrupt("name list \(list) out of range") }
            changes.append(
                HistoryChange(kind: kind, entity: entity, id: id, changedProperties: lists[Int(list)], version: version)
            )
        }
        guard reader.position == reader.bytes.count else { throw reader.corrupt("bytes after the last change") }
        var entry = header
        entry.changes = changes
        return entry
    }
}
