import Foundation
import Strata

/// The rows of wire format 2: a change, a mutation and a push result, each a JSON array whose
/// positions the format fixes (trailing optional positions may be left out).
enum WireRows {
    // MARK: IDs and timestamps

    static func writeID(_ id: RecordID, to writer: inout JSONWriter) { writer.string(SyncWire.encodeID(id)) }

    static func readID(from reader: inout JSONReader) throws -> RecordID {
        guard let id = SyncWire.decodeID(try reader.readString()) else { throw reader.fail("expected a record ID") }
        return id
    }

    static func readOptionalID(from reader: inout JSONReader) throws -> RecordID? {
        try reader.readNull() ? nil : try readID(from: &reader)
    }

    /// `[millis, counter]` when the node is `implied`, else `[millis, counter, node]`.
    static func writeTimestamp(_ time: HybridTimestamp, implied: String?, to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        writer.int(time.millis)
        writer.byte(UInt8(ascii: ","))
        writer.int(Int64(time.counter))
        if time.node != implied {
            writer.byte(UInt8(ascii: ","))
            writer.string(time.node)
        }
        writer.byte(UInt8(ascii: "]"))
    }

    static func readTimestamp(implied: String?, from reader: inout JSONReader) throws -> HybridTimestamp {
        try reader.expect(UInt8(ascii: "["))
        let millis = try reader.readInt()
        try reader.expect(UInt8(ascii: ","))
        guard let counter = UInt32(exactly: try reader.readInt()) else { throw reader.fail("a counter out of range") }
        var node = implied
        if try reader.more() {
            node = try reader.readString()
            try reader.expect(UInt8(ascii: "]"))
        }
        guard let node else { throw reader.fail("a timestamp without its node") }
        return HybridTimestamp(millis: millis, counter: counter, node: node)
    }

    // MARK: Changes

    /// `[shape, id, serverVersion, time, origin, values|null|false, links?]` (`null` a deletion,
    /// `false` an eviction); the time's node is left out when it is the origin.
    static func writeChange(_ change: RemoteChange, shapes: inout WireShapeTable, to writer: inout JSONWriter)
        throws
    {
        let (index, shape) = try shapes.index(entity: change.entity, values: change.values ?? [:])
        writer.byte(UInt8(ascii: "["))
        writer.int(Int64(index))
        writer.byte(UInt8(ascii: ","))
        writeID(change.recordID, to: &writer)
        writer.byte(UInt8(ascii: ","))
        writer.int(change.serverVersion)
        writer.byte(UInt8(ascii: ","))
        writeTimestamp(change.timestamp, implied: change.origin, to: &writer)
        writer.byte(UInt8(ascii: ","))
        if let origin = change.origin { writer.string(origin) } else { writer.null() }
        writer.byte(UInt8(ascii: ","))
        if change.values != nil {
            shape.write(row: shapes.row, to: &writer)
        } else if change.isEviction {
            writer.bool(false)
        } else {
            writer.null()
        }
        if !change.links.isEmpty {
            writer.byte(UInt8(ascii: ","))
            writeLinks(change.links, to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
    }

    static func readChange(shapes: [WireShape], from reader: inout JSONReader) throws -> RemoteChange {
        try reader.expect(UInt8(ascii: "["))
        let shape = try readShape(shapes, from: &reader)
        try reader.expect(UInt8(ascii: ","))
        let id = try readID(from: &reader)
        try reader.expect(UInt8(ascii: ","))
        let version = try reader.readInt()
        try reader.expect(UInt8(ascii: ","))
        let timeStart = reader.offset
        try reader.skipValue()
        try reader.expect(UInt8(ascii: ","))
        let origin = try reader.readNull() ? nil : try reader.readString()
        var timeReader = reader.rewound(to: timeStart)
        let time = try readTimestamp(implied: origin, from: &timeReader)
        try reader.expect(UInt8(ascii: ","))
        // `false`: evicted, `null`: deleted.
        let evicted = reader.peek() == UInt8(ascii: "f")
        let values = try evicted ? nil : reader.readNull() ? nil : try shape.readValues(from: &reader)
        if evicted { _ = try reader.readBool() }
        var links: [String: [RecordID]] = [:]
        if try reader.more() {
            links = try readLinks(from: &reader)
            try reader.expect(UInt8(ascii: "]"))
        }
        var change = RemoteChange(
            entity: shape.entity, recordID: id, values: values, links: links, serverVersion: version, timestamp: time,
            origin: origin)
        change.isEviction = evicted
        return change
    }

    static func readShape(_ shapes: [WireShape], from reader: inout JSONReader) throws -> WireShape {
        let index = try reader.readInt()
        guard index >= 0, index < shapes.count else {
            throw reader.fail("a row naming shape \(index), not in `shapes`")
        }
        return shapes[Int(index)]
    }

    static func writeIDs(_ ids: [RecordID], to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        for (index, id) in ids.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writeID(id, to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
    }

    static func readIDs(from reader: inout JSONReader) throws -> [RecordID] {
        var ids: [RecordID] = []
        try reader.array { ids.append(try readID(from: &$0)) }
        return ids
    }

    /// `{relationship: [id, …]}`, relationships in code-unit order.
    static func writeLinks(_ links: [String: [RecordID]], to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        for (index, name) in links.keys.sorted().enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.string(name)
            writer.byte(UInt8(ascii: ":"))
            writeIDs(links[name] ?? [], to: &writer)
        }
        writer.byte(UInt8(ascii: "}"))
    }

    static func readLinks(from reader: inout JSONReader) throws -> [String: [RecordID]] {
        var links: [String: [RecordID]] = [:]
        try reader.object { reader, name in links[name] = try readIDs(from: &reader) }
        return links
    }
}
