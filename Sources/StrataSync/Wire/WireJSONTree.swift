import Foundation
import Strata

/// Any JSON value as a tree, the bridge between format 2's byte-level reader and writer and
/// Swift's `Encoder`/`Decoder`: a message's `Codable` conformance writes format 2's bytes through
/// any encoder (`JSONEncoder` gives the same JSON text, members perhaps reordered, which format 2
/// allows) and reads them back from any decoder. Numbers keep whether they were written as
/// integers. Nesting is bounded by ``JSONReader/maximumDepth`` both ways.
enum WireJSONTree: Codable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([WireJSONTree])
    case object([(String, WireJSONTree)])

    static func == (lhs: WireJSONTree, rhs: WireJSONTree) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.int(let a), .int(let b)): a == b
        case (.double(let a), .double(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// The tree of JSON text.
    static func parse(_ bytes: [UInt8]) throws -> WireJSONTree {
        var reader = JSONReader(bytes)
        let tree = try read(&reader, depth: 0)
        try reader.expectEnd()
        return tree
    }

    private static func read(_ reader: inout JSONReader, depth: Int) throws -> WireJSONTree {
        guard depth < JSONReader.maximumDepth else { throw reader.fail("nested too deeply") }
        switch reader.peek() {
        case UInt8(ascii: "{"):
            var members: [(String, WireJSONTree)] = []
            try reader.object { reader, key in members.append((key, try read(&reader, depth: depth + 1))) }
            return .object(members)
        case UInt8(ascii: "["):
            var elements: [WireJSONTree] = []
            try reader.array { elements.append(try read(&$0, depth: depth + 1)) }
            return .array(elements)
        case UInt8(ascii: "\""): return .string(try reader.readString())
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try reader.readBool())
        case UInt8(ascii: "n"):
            _ = try reader.readNull()
            return .null
        default:
            let start = reader.offset
            if let integer = try? reader.readInt() { return .int(integer) }
            reader = reader.rewound(to: start)
            return .double(try reader.readDouble())
        }
    }

    /// The tree as JSON text.
    var bytes: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        write(to: &writer)
        return writer.bytes
    }

    private func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .int(let value): writer.int(value)
        case .double(let value): writer.double(value)
        case .string(let value): writer.string(value)
        case .array(let elements):
            writer.byte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                element.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "]"))
        case .object(let members):
            writer.byte(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.string(key)
                writer.byte(UInt8(ascii: ":"))
                value.write(to: &writer)
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        guard encoder.codingPath.count < JSONReader.maximumDepth else {
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "too deep"))
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .int(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .double(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try container.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count < JSONReader.maximumDepth else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "nested too deeply"))
        }
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            self = .object(try keyed.allKeys.map { ($0.stringValue, try keyed.decode(WireJSONTree.self, forKey: $0)) })
        } else if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [WireJSONTree] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(WireJSONTree.self)) }
            self = .array(elements)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int64.self) {
                self = .int(value)
            } else if let value = try? single.decode(Double.self) {
                self = .double(value)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }
}

/// A versioned sync message (its `version` names its wire format).
protocol WireVersioned { var version: Int { get set } }

extension PushRequest: WireVersioned {}
extension PushResponse: WireVersioned {}
extension PullResponse: WireVersioned {}
extension SnapshotResponse: WireVersioned {}

/// A message's `Codable` form in the format it carries (its `version`): format 2's bytes through
/// ``WireJSONTree``, or format 1's keyed form.
enum WireCodable {
    private enum VersionKey: String, CodingKey { case version }

    /// The message `decoder` holds, in the format its `version` member names (1 when it names
    /// none: format 1 predates it): format 2's bytes read by `format2`, or format 1's keyed
    /// members read by `format1`.
    static func decode<Message: WireVersioned, Keys: CodingKey>(
        _ decoder: any Decoder, _ keys: Keys.Type, format2: ([UInt8]) throws -> Message,
        format1: (KeyedDecodingContainer<Keys>) throws -> Message
    ) throws -> Message {
        let version = try decoder.container(keyedBy: VersionKey.self).decodeIfPresent(Int.self, forKey: .version) ?? 1
        guard version != SyncWireFormat2.version else {
            let tree = try decoder.singleValueContainer().decode(WireJSONTree.self)
            do {
                return try format2(tree.bytes)
            } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "not a format-2 message: \(error)"))
            }
        }
        var message = try format1(try decoder.container(keyedBy: keys))
        message.version = version
        return message
    }

    /// Writes `message` through `encoder` in the format its `version` names: format 2's bytes
    /// from `format2`, or format 1's keyed members by `format1`.
    static func encode<Message: WireVersioned, Keys: CodingKey>(
        _ message: Message, to encoder: any Encoder, _ keys: Keys.Type, format2: (Message) throws -> [UInt8],
        format1: (inout KeyedEncodingContainer<Keys>) throws -> Void
    ) throws {
        if message.version == SyncWireFormat2.version {
            var container = encoder.singleValueContainer()
            try container.encode(try WireJSONTree.parse(try format2(message)))
        } else {
            var container = encoder.container(keyedBy: keys)
            try format1(&container)
        }
    }
}
