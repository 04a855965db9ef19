import Foundation
import Strata

/// Wire format 2: the sync messages as compact, documented JSON. Values are plain JSON scalars;
/// each message lists the `shapes` its rows use (entity, properties and their types, see
/// ``WireValueType``), and each row is a positional array naming its shape (see ``WireRows``).
/// The "Sync over HTTP" article documents every message; `openapi/strata-sync.json` describes
/// them for other languages.
enum SyncWireFormat2 {
    static let version = 2

    // MARK: Push

    static func encode(_ request: PushRequest) throws -> [UInt8] {
        var shapes = WireShapeTable()
        var rows = JSONWriter(capacity: request.mutations.count * 160)
        for (index, mutation) in request.mutations.enumerated() {
            rows.byte(index == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
            try WireRows.writeMutation(mutation, client: request.clientID, shapes: &shapes, to: &rows)
        }
        if request.mutations.isEmpty { rows.byte(UInt8(ascii: "[")) }
        rows.byte(UInt8(ascii: "]"))
        var writer = JSONWriter(capacity: rows.bytes.count + 512)
        writer.raw("{\"version\":2,\"clientID\":")
        writer.string(request.clientID)
        if let schema = request.schemaVersion {
            writer.raw(",\"schemaVersion\":")
            writer.string(schema)
        }
        writer.raw(",\"shapes\":")
        shapes.write(to: &writer)
        writer.raw(",\"mutations\":")
        writer.append(rows)
        writer.byte(UInt8(ascii: "}"))
        return writer.bytes
    }

    static func decodePushRequest(_ bytes: [UInt8]) throws -> PushRequest {
        var client: String?
        var schema: String?
        var shapes: [WireShape] = []
        var rows: Int?
        var reader = JSONReader(bytes)
        try reader.object { reader, key in
            switch key {
            case "version": try expectVersion(&reader)
            case "clientID": client = try reader.readString()
            case "schemaVersion": schema = try reader.readNull() ? nil : try reader.readString()
            case "shapes": shapes = try readShapes(&reader)
            case "mutations": rows = try reader.skipValue()
            default: try reader.skipValue()
            }
        }
        try reader.expectEnd()
        guard let client else { throw reader.fail("a push without `clientID`") }
        var mutations: [SyncMutation] = []
        if let rows {
            var rowReader = reader.rewound(to: rows)
            try rowReader.array {
                mutations.append(try WireRows.readMutation(shapes: shapes, client: client, from: &$0))
            }
        }
        var request = PushRequest(clientID: client, mutations: mutations, schemaVersion: schema)
        request.version = version
        return request
    }

    static func encode(_ response: PushResponse) throws -> [UInt8] {
        let client = response.results.first?.id.clientID
        var shapes = WireShapeTable()
        var rows = JSONWriter(capacity: response.results.count * 24)
        rows.byte(UInt8(ascii: "["))
        for (index, result) in response.results.enumerated() {
            if index > 0 { rows.byte(UInt8(ascii: ",")) }
            try WireRows.writeResult(result, client: client, shapes: &shapes, to: &rows)
        }
        rows.byte(UInt8(ascii: "]"))
        var writer = JSONWriter(capacity: rows.bytes.count + 256)
        writer.raw("{\"version\":2")
        if let client {
            writer.raw(",\"clientID\":")
            writer.string(client)
        }
        writer.raw(",\"shapes\":")
        shapes.write(to: &writer)
        writer.raw(",\"results\":")
        writer.append(rows)
        writer.byte(UInt8(ascii: "}"))
        return writer.bytes
    }

    static func decodePushResponse(_ bytes: [UInt8]) throws -> PushResponse {
        var client: String?
        var shapes: [WireShape] = []
        var rows: Int?
        var reader = JSONReader(bytes)
        try reader.object { reader, key in
            switch key {
            case "version": try expectVersion(&reader)
            case "clientID": client = try reader.readString()
            case "shapes": shapes = try readShapes(&reader)
            case "results": rows = try reader.skipValue()
            default: try reader.skipValue()
            }
        }
        try reader.expectEnd()
        var results: [MutationResult] = []
        if let rows {
            var rowReader = reader.rewound(to: rows)
            try rowReader.array { results.append(try WireRows.readResult(shapes: shapes, client: client, from: &$0)) }
        }
        var response = PushResponse(results: results)
        response.version = version
        return response
    }

    // MARK: Shared parts

    static func expectVersion(_ reader: inout JSONReader) throws {
        guard try reader.readInt() == version else { throw reader.fail("a message of another format version") }
    }

    static func readShapes(_ reader: inout JSONReader) throws -> [WireShape] {
        var shapes: [WireShape] = []
        try reader.array { shapes.append(try WireShape.read(from: &$0)) }
        return shapes
    }

    /// `"cursor": N|null, "epoch": text|null`.
    static func writeCursor(_ cursor: SyncCursor?, to writer: inout JSONWriter) {
        writer.raw(",\"cursor\":")
        if let cursor { writer.int(cursor.value) } else { writer.null() }
        writer.raw(",\"epoch\":")
        if let epoch = cursor?.epoch { writer.string(epoch) } else { writer.null() }
    }

    static func writeChanges(_ changes: [RemoteChange], shapes: inout WireShapeTable) throws -> JSONWriter {
        var rows = JSONWriter(capacity: changes.count * 160)
        rows.byte(UInt8(ascii: "["))
        for (index, change) in changes.enumerated() {
            if index > 0 { rows.byte(UInt8(ascii: ",")) }
            try WireRows.writeChange(change, shapes: &shapes, to: &rows)
        }
        rows.byte(UInt8(ascii: "]"))
        return rows
    }

    static func readChanges(at offset: Int?, shapes: [WireShape], in reader: JSONReader) throws -> [RemoteChange] {
        guard let offset else { return [] }
        var changes: [RemoteChange] = []
        var rowReader = reader.rewound(to: offset)
        try rowReader.array { changes.append(try WireRows.readChange(shapes: shapes, from: &$0)) }
        return changes
    }
}
