import Foundation
import Strata

/// A row's shape in wire format 2: its entity, the properties its values array holds, in order,
/// and their types (the message's type map). Every row names its shape by index into the
/// message's `shapes`, so property names and types are written once per message, not per row.
struct WireShape: Hashable {
    var entity: String
    var properties: [String]
    var types: [WireValueType]

    func write(to writer: inout JSONWriter) {
        writer.raw("{\"entity\":")
        writer.string(entity)
        writer.raw(",\"properties\":[")
        for (index, name) in properties.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.string(name)
        }
        writer.raw("],\"types\":[")
        for (index, type) in types.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            writer.string(type.name)
        }
        writer.raw("]}")
    }

    static func read(from reader: inout JSONReader) throws -> WireShape {
        var entity: String?
        var properties: [String] = []
        var types: [WireValueType] = []
        try reader.object { reader, key in
            switch key {
            case "entity": entity = try reader.readString()
            case "properties": try reader.array { properties.append(try $0.readString()) }
            case "types":
                try reader.array { reader in
                    let name = try reader.readString()
                    guard let type = WireValueType(name: name) else { throw reader.fail("an unknown type `\(name)`") }
                    types.append(type)
                }
            default: try reader.skipValue()
            }
        }
        guard let entity, !entity.isEmpty else { throw reader.fail("a shape without an entity") }
        guard properties.count == types.count, Set(properties).count == properties.count else {
            throw reader.fail("a shape whose properties and types do not pair up")
        }
        return WireShape(entity: entity, properties: properties, types: types)
    }

    /// Writes `values` (which have exactly this shape's properties) as an array in its order.
    /// Whether `values` of `entity` have exactly this shape.
    /// Whether `values` of `entity` have this shape; when they do, `row` holds them in the
    /// shape's order (each looked up once).
    func fits(entity: String, values: [String: Value], row: inout [Value]) throws -> Bool {
        guard entity == self.entity, values.count == properties.count else { return false }
        row.removeAll(keepingCapacity: true)
        for (index, name) in properties.enumerated() {
            guard let value = values[name], try WireValueType(of: value) == types[index] else { return false }
            row.append(value)
        }
        return true
    }

    /// Writes a row's values, in this shape's order, as a JSON array.
    func write(row: [Value], to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        for (index, value) in row.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            types[index].write(value, to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
    }

    func readValues(from reader: inout JSONReader) throws -> [String: Value] {
        var values: [String: Value] = Dictionary(minimumCapacity: properties.count)
        var index = 0
        try reader.array { reader in
            guard index < properties.count else { throw reader.fail("more values than the shape's properties") }
            values[properties[index]] = try types[index].read(from: &reader)
            index += 1
        }
        guard index == properties.count else { throw reader.fail("fewer values than the shape's properties") }
        return values
    }
}

/// The shapes of one message being written: each distinct (entity, properties, types) gets the
/// next index. Properties are in code-unit order, so a row's shape does not depend on a
/// dictionary's iteration order.
struct WireShapeTable {
    private(set) var shapes: [WireShape] = []
    private var indexes: [WireShape: Int] = [:]
    private var last: (shape: WireShape, index: Int)?
    /// The values of the row last indexed, in its shape's order.
    private(set) var row: [Value] = []

    /// The index of the shape of `values` of `entity`, adding it when new; ``row`` then holds the
    /// values in the shape's order.
    mutating func index(entity: String, values: [String: Value]) throws -> (index: Int, shape: WireShape) {
        // Rows of one shape usually come together: reuse the last one without sorting names.
        if let last, try last.shape.fits(entity: entity, values: values, row: &row) { return (last.index, last.shape) }
        let properties = values.keys.sorted()
        var types: [WireValueType] = []
        types.reserveCapacity(properties.count)
        row.removeAll(keepingCapacity: true)
        for name in properties {
            let value = values[name] ?? .null
            types.append(try WireValueType(of: value))
            row.append(value)
        }
        let shape = WireShape(entity: entity, properties: properties, types: types)
        if let last, last.shape == shape { return (last.index, shape) }
        let index: Int
        if let known = indexes[shape] {
            index = known
        } else {
            index = shapes.count
            shapes.append(shape)
            indexes[shape] = index
        }
        last = (shape, index)
        return (index, shape)
    }

    func write(to writer: inout JSONWriter) {
        writer.byte(UInt8(ascii: "["))
        for (index, shape) in shapes.enumerated() {
            if index > 0 { writer.byte(UInt8(ascii: ",")) }
            shape.write(to: &writer)
        }
        writer.byte(UInt8(ascii: "]"))
    }
}
