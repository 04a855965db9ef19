import Foundation

/// The outbox's stored form: compact binary, since an entry is written on every save.
extension Outbox {
    static func encode(_ mutations: [OutboxMutation]) -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(formatVersion)
        writer.unsigned(UInt64(mutations.count))
        for mutation in mutations {
            writeHeader(
                clientID: mutation.id.clientID, sequence: mutation.id.sequence,
                kind: mutation.kind == .put ? (mutation.isInsert ? 2 : 1) : 0,
                entity: mutation.entity, id: mutation.recordID, base: mutation.baseServerVersion,
                timestamp: mutation.timestamp, &writer)
            writer.unsigned(UInt64(mutation.values.count))
            for (name, value) in mutation.values.sorted(by: { $0.key < $1.key }) {
                writer.string(name)
                writer.value(value)
            }
            writer.unsigned(UInt64(mutation.links.count))
            for (name, delta) in mutation.links.sorted(by: { $0.key < $1.key }) { writeLinks(name, delta, &writer) }
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> [OutboxMutation] {
        var reader = BinaryReader(bytes)
        guard try reader.byte() == formatVersion else {
            throw StrataError(.incompatibleStore, "outbox entry has an unknown format version")
        }
        let count = try reader.count()
        var mutations: [OutboxMutation] = []
        mutations.reserveCapacity(count)
        for _ in 0..<count {
            let id = OutboxMutationID(clientID: try reader.string(), sequence: try reader.unsigned())
            let kindByte = try reader.byte()
            guard kindByte <= 2 else { throw reader.corrupt("unknown mutation kind") }
            let entity = try reader.string()
            let recordID = try reader.recordID()
            let base: Int64? = try reader.byte() == 1 ? try reader.signed() : nil
            let timestamp = try readTimestamp(&reader)
            var values: [String: Value] = [:]
            for _ in 0..<(try reader.count()) { values[try reader.string()] = try reader.value() }
            var links: [String: OutboxLinkDelta] = [:]
            for _ in 0..<(try reader.count()) {
                let name = try reader.string()
                var lists: [[RecordID]] = []
                for _ in 0..<3 { lists.append(try (0..<reader.count()).map { _ in try reader.recordID() }) }
                links[name] = OutboxLinkDelta(added: lists[0], removed: lists[1], order: lists[2])
            }
            mutations.append(
                OutboxMutation(
                    id: id, kind: kindByte == 0 ? .delete : .put, entity: entity, recordID: recordID,
                    isInsert: kindByte == 2,
                    values: values, links: links, baseServerVersion: base, timestamp: timestamp))
        }
        return mutations
    }

    static func writeLinks(_ name: String, _ delta: OutboxLinkDelta, _ writer: inout BinaryWriter) {
        writer.string(name)
        for list in [delta.added, delta.removed, delta.order] {
            writer.unsigned(UInt64(list.count))
            for id in list { writer.recordID(id) }
        }
    }

    package static func writeTimestamp(_ timestamp: OutboxTimestamp, _ writer: inout BinaryWriter) {
        writer.signed(timestamp.millis)
        writer.unsigned(UInt64(timestamp.counter))
        writer.string(timestamp.node)
    }

    package static func readTimestamp(_ reader: inout BinaryReader) throws -> OutboxTimestamp {
        let millis = try reader.signed()
        let counter = UInt32(truncatingIfNeeded: try reader.unsigned())
        return OutboxTimestamp(millis: millis, counter: counter, node: try reader.string())
    }
}
