import Foundation
import Strata

extension SyncWireFormat2 {
    static func encode(_ response: PullResponse) throws -> [UInt8] {
        var shapes = WireShapeTable()
        let rows = try writeChanges(response.changes, shapes: &shapes)
        var writer = JSONWriter(capacity: rows.bytes.count + 512)
        writer.raw("{\"version\":2,\"shapes\":")
        shapes.write(to: &writer)
        writer.raw(",\"changes\":")
        writer.append(rows)
        writeCursor(response.cursor, to: &writer)
        writer.raw(",\"hasMore\":")
        writer.bool(response.hasMore)
        writer.byte(UInt8(ascii: "}"))
        return writer.bytes
    }

    static func decodePullResponse(_ bytes: [UInt8]) throws -> PullResponse {
        var shapes: [WireShape] = []
        var rows: Int?
        var cursor: Int64?
        var epoch: String?
        var hasMore: Bool?
        var reader = JSONReader(bytes)
        try reader.object { reader, key in
            switch key {
            case "version": try expectVersion(&reader)
            case "shapes": shapes = try readShapes(&reader)
            case "changes": rows = try reader.skipValue()
            case "cursor": cursor = try reader.readNull() ? nil : try reader.readInt()
            case "epoch": epoch = try reader.readNull() ? nil : try reader.readString()
            case "hasMore": hasMore = try reader.readBool()
            default: try reader.skipValue()
            }
        }
        try reader.expectEnd()
        guard let hasMore else { throw reader.fail("a pull answer without `hasMore`") }
        var response = PullResponse(
            changes: try readChanges(at: rows, shapes: shapes, in: reader),
            cursor: cursor.map { SyncCursor($0, epoch: epoch) }, hasMore: hasMore)
        response.version = version
        return response
    }

    static func encode(_ response: SnapshotResponse) throws -> [UInt8] {
        var shapes = WireShapeTable()
        let rows = try writeChanges(response.records, shapes: &shapes)
        var writer = JSONWriter(capacity: rows.bytes.count + 512)
        writer.raw("{\"version\":2,\"entity\":")
        writer.string(response.entity)
        writer.raw(",\"shapes\":")
        shapes.write(to: &writer)
        writer.raw(",\"records\":")
        writer.append(rows)
        writer.raw(",\"through\":")
        if let through = response.through { WireRows.writeID(through, to: &writer) } else { writer.null() }
        writer.raw(",\"next\":")
        if let next = response.next {
            writer.raw("{\"entity\":")
            writer.string(next.entity)
            writer.raw(",\"after\":")
            if let after = next.after { WireRows.writeID(after, to: &writer) } else { writer.null() }
            writer.byte(UInt8(ascii: "}"))
        } else {
            writer.null()
        }
        writeCursor(response.cursor, to: &writer)
        if let expected = response.expected {
            writer.raw(",\"expected\":")
            writer.int(Int64(expected))
        }
        writer.byte(UInt8(ascii: "}"))
        return writer.bytes
    }

    static func decodeSnapshotResponse(_ bytes: [UInt8]) throws -> SnapshotResponse {
        var entity: String?
        var shapes: [WireShape] = []
        var rows: Int?
        var through: RecordID?
        var next: SnapshotPosition?
        var cursor: Int64?
        var epoch: String?
        var expected: Int?
        var reader = JSONReader(bytes)
        try reader.object { reader, key in
            switch key {
            case "version": try expectVersion(&reader)
            case "expected": expected = Int(exactly: try reader.readInt())
            case "entity": entity = try reader.readString()
            case "shapes": shapes = try readShapes(&reader)
            case "records": rows = try reader.skipValue()
            case "through": through = try WireRows.readOptionalID(from: &reader)
            case "next": next = try readPosition(&reader)
            case "cursor": cursor = try reader.readNull() ? nil : try reader.readInt()
            case "epoch": epoch = try reader.readNull() ? nil : try reader.readString()
            default: try reader.skipValue()
            }
        }
        try reader.expectEnd()
        guard let entity else { throw reader.fail("a snapshot answer without `entity`") }
        var response = SnapshotResponse(
            entity: entity, records: try readChanges(at: rows, shapes: shapes, in: reader), through: through,
            next: next, cursor: cursor.map { SyncCursor($0, epoch: epoch) })
        response.version = version
        response.expected = expected
        return response
    }

    private static func readPosition(_ reader: inout JSONReader) throws -> SnapshotPosition? {
        guard !(try reader.readNull()) else { return nil }
        var entity: String?
        var after: RecordID?
        try reader.object { reader, key in
            switch key {
            case "entity": entity = try reader.readString()
            case "after": after = try WireRows.readOptionalID(from: &reader)
            default: try reader.skipValue()
            }
        }
        guard let entity else { throw reader.fail("a position without `entity`") }
        return SnapshotPosition(entity: entity, after: after)
    }
}
