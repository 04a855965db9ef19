import Foundation

/// The stored form of a ``HistoryTransaction``: compact, versioned binary (history is written on
/// every save, so its encoding is on the hot path; JSON was half the cost of a large save).
///
/// Layout (format 1): `0x01`, token (i64), timestamp (f64 bits), author, context name (optional
/// strings), change count, then per change: kind (u8), entity, ID, version (i64), property count
/// and names. Integers are little-endian varints (zigzag for signed); strings are length-prefixed UTF-8.
enum HistoryCodec {
    static let formatVersion: UInt8 = 1

    static func encode(_ entry: HistoryTransaction) -> [UInt8] {
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(32 + entry.changes.count * 64)
        writer.byte(formatVersion)
        writer.signed(entry.token.value)
        writer.unsigned(entry.timestamp.timeIntervalSince1970.bitPattern)
        writer.optionalString(entry.author)
        writer.optionalString(entry.contextName)
        writer.unsigned(UInt64(entry.changes.count))
        for change in entry.changes {
            writer.byte(change.kind == .insert ? 0 : change.kind == .update ? 1 : 2)
            writer.string(change.entity)
            writer.recordID(change.id)
            writer.signed(change.version)
            writer.unsigned(UInt64(change.changedProperties.count))
            for name in change.changedProperties { writer.string(name) }
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> HistoryTransaction {
        var reader = BinaryReader(bytes)
        guard try reader.byte() == formatVersion else {
            throw StrataError(.incompatibleStore, "history entry has an unknown format version")
        }
        let token = HistoryToken(try reader.signed())
        let timestamp = Date(timeIntervalSince1970: Double(bitPattern: try reader.unsigned()))
        let author = try reader.optionalString()
        let contextName = try reader.optionalString()
        let count = try reader.count()
        var changes: [HistoryChange] = []
        changes.reserveCapacity(count)
        for _ in 0..<count {
            let kind: HistoryChange.Kind
            switch try reader.byte() {
            case 0: kind = .insert
            case 1: kind = .update
            case 2: kind = .delete
            default: throw reader.corrupt("unknown change kind")
            }
            let entity = try reader.string()
            let id = try reader.recordID()
            let version = try reader.signed()
            let names = try (0..<reader.count()).map { _ in try reader.string() }
            changes.append(HistoryChange(kind: kind, entity: entity, id: id, changedProperties: names, version: version))
        }
        return HistoryTransaction(token: token, timestamp: timestamp, author: author, contextName: contextName, changes: changes)
    }
}

