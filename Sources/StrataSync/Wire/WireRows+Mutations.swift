import Foundation
import Strata

extension WireRows {
    /// A mutation's ID: its sequence number when it is the message's client's, else `[client, sequence]`.
    static func writeMutationID(_ id: MutationID, client: String?, to writer: inout JSONWriter) {
        guard id.clientID != client else {
            writer.int(Int64(truncatingIfNeeded: id.sequence))
            return
        }
        writer.byte(UInt8(ascii: "["))
        writer.string(id.clientID)
        writer.byte(UInt8(ascii: ","))
        writer.int(Int64(truncatingIfNeeded: id.sequence))
        writer.byte(UInt8(ascii: "]"))
    }

    static func readMutationID(client: String?, from reader: inout JSONReader) throws -> MutationID {
        guard reader.peek() == UInt8(ascii: "[") else {
            guard let client else { throw reader.fail("a mutation ID without its client") }
            return MutationID(clientID: client, sequence: UInt64(truncatingIfNeeded: try reader.readInt()))
        }
        try reader.expect(UInt8(ascii: "["))
        let other = try reader.readString()
        try reader.expect(UInt8(ascii: ","))
        let sequence = UInt64(truncatingIfNeeded: try reader.readInt())
        try reader.expect(UInt8(ascii: "]"))
        return MutationID(clientID: other, sequence: sequence)
    }

    /// `[shape, id, kind, recordID, insert, baseServerVersion|null, time, values, links?]`; the
    /// time's node is left out when it is the mutation's client; links are
    /// `{relationship: [added, removed, order]}`.
    static func writeMutation(
        _ mutation: SyncMutation, client: String, shapes: inout WireShapeTable, to writer: inout JSONWriter
    ) throws {
        let (index, shape) = try shapes.index(entity: mutation.entity, values: mutation.values)
        writer.byte(UInt8(ascii: "["))
        writer.int(Int64(index))
        writer.byte(UInt8(ascii: ","))
        writeMutationID(mutation.id, client: client, to: &writer)
        writer.byte(UInt8(ascii: ","))
        mutation.kind == .put ? writer.raw("\"put\"") : writer.raw("\"delete\"")
        writer.byte(UInt8(ascii: ","))
        writeID(mutation.recordID, to: &writer)
        writer.byte(UInt8(ascii: ","))
        writer.bool(mutation.isInsert)
        writer.byte(UInt8(ascii: ","))
        if let base = mutation.baseServerVersion { writer.int(base) } else { writer.null() }
        writer.byte(UInt8(ascii: ","))
        writeTimestamp(mutation.timestamp, implied: mutation.id.clientID, to: &writer)
        writer.byte(UInt8(ascii: ","))
        shape.write(row: shapes.row, to: &writer)
        if !mutation.links.isEmpty {
            writer.byte(UInt8(ascii: ","))
            writeDeltas(mutation.links, to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
    }

    static func readMutation(shapes: [WireShape], client: String?, from reader: inout JSONReader) throws
        -> SyncMutation
    {
        try reader.expect(UInt8(ascii: "["))
        let shape = try readShape(shapes, from: &reader)
        try reader.expect(UInt8(ascii: ","))
        let id = try readMutationID(client: client, from: &reader)
        try reader.expect(UInt8(ascii: ","))
        guard let kind = SyncMutation.Kind(rawValue: try reader.readString()) else {
            throw reader.fail("a mutation kind other than put or delete")
        }
        try reader.expect(UInt8(ascii: ","))
        let recordID = try readID(from: &reader)
        try reader.expect(UInt8(ascii: ","))
        let isInsert = try reader.readBool()
        try reader.expect(UInt8(ascii: ","))
        let base = try reader.readNull() ? nil : try reader.readInt()
        try reader.expect(UInt8(ascii: ","))
        let time = try readTimestamp(implied: id.clientID, from: &reader)
        try reader.expect(UInt8(ascii: ","))
        let values = try shape.readValues(from: &reader)
        var links: [String: LinkDelta] = [:]
        if try reader.more() {
            links = try readDeltas(from: &reader)
            try reader.expect(UInt8(ascii: "]"))
        }
        return SyncMutation(
            id: id, kind: kind, entity: shape.entity, recordID: recordID, isInsert: isInsert, values: values,
            links: links, baseServerVersion: base, timestamp: time)
    }

    static func writeDeltas(_ deltas: [String: LinkDelta], to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "{"))
        for (index, (name, delta)) in deltas.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.string(name)
            writer.raw(":[")
            writeIDs(delta.added, to: &writer)
            writer.byte(UInt8(ascii: ","))
            writeIDs(delta.removed, to: &writer)
            writer.byte(UInt8(ascii: ","))
            writeIDs(delta.order, to: &writer)
            writer.byte(UInt8(ascii: "]"))
        }
        writer.byte(UInt8(ascii: "}"))
    }

    static func readDeltas(from reader: inout JSONReader) throws -> [String: LinkDelta] {
        var deltas: [String: LinkDelta] = [:]
        try reader.object { reader, name in
            try reader.expect(UInt8(ascii: "["))
            let added = try readIDs(from: &reader)
            try reader.expect(UInt8(ascii: ","))
            let removed = try readIDs(from: &reader)
            try reader.expect(UInt8(ascii: ","))
            let order = try readIDs(from: &reader)
            try reader.expect(UInt8(ascii: "]"))
            deltas[name] = LinkDelta(added: added, removed: removed, order: order)
        }
        return deltas
    }

    /// `[id, outcome, serverVersion?, code?, reason?, current?]`, trailing nulls left out;
    /// `current` is a change row.
    static func writeResult(
        _ result: MutationResult, client: String?, shapes: inout WireShapeTable, to writer: inout JSONWriter
    ) throws {
        writer.byte(UInt8(ascii: "["))
        writeMutationID(result.id, client: client, to: &writer)
        writer.byte(UInt8(ascii: ","))
        writer.string(result.outcome.rawValue)
        let last =
            result.current != nil
            ? 4 : result.reason != nil ? 3 : result.code != nil ? 2 : result.serverVersion != nil ? 1 : 0
        if last >= 1 {
            writer.byte(UInt8(ascii: ","))
            if let version = result.serverVersion { writer.int(version) } else { writer.null() }
        }
        for (position, text) in [(2, result.code), (3, result.reason)] where last >= position {
            writer.byte(UInt8(ascii: ","))
            if let text { writer.string(text) } else { writer.null() }
        }
        if let current = result.current {
            writer.byte(UInt8(ascii: ","))
            try writeChange(current, shapes: &shapes, to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
    }

    static func readResult(shapes: [WireShape], client: String?, from reader: inout JSONReader) throws
        -> MutationResult
    {
        try reader.expect(UInt8(ascii: "["))
        let id = try readMutationID(client: client, from: &reader)
        try reader.expect(UInt8(ascii: ","))
        guard let outcome = MutationResult.Outcome(rawValue: try reader.readString()) else {
            throw reader.fail("an unknown outcome")
        }
        var result = MutationResult(id: id, outcome: outcome)
        guard try reader.more() else { return result }
        result.serverVersion = try reader.readNull() ? nil : try reader.readInt()
        guard try reader.more() else { return result }
        result.code = try reader.readNull() ? nil : try reader.readString()
        guard try reader.more() else { return result }
        result.reason = try reader.readNull() ? nil : try reader.readString()
        guard try reader.more() else { return result }
        result.current = try reader.readNull() ? nil : try readChange(shapes: shapes, from: &reader)
        try reader.expect(UInt8(ascii: "]"))
        return result
    }
}
