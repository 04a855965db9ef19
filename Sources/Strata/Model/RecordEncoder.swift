import Foundation

/// Encodes a model straight into a `Record`'s values: no intermediate JSON. Nested structs
/// (composite attributes) flatten to `outer.inner` keys; enums store their raw value.
enum RecordEncoder {
    static func encode<M: PersistentModel>(_ model: M) throws -> Record {
        let sink = ValueSink()
        try model.encode(to: FlatEncoder(sink: sink, prefix: ""))
        if let failure = sink.failure { throw failure }
        sink.values.removeValue(forKey: "id")
        // An attribute declared with another stored name (`.attribute(\.name, name: "title")`)
        // is stored under it, as the key-path encoder stores it.
        for (property, stored) in M.entity.renamed where property != stored {
            if let value = sink.values.removeValue(forKey: property) { sink.values[stored] = value }
        }
        return Record(entity: M.entityName, id: model.id.recordID, values: sink.values)
    }
}

final class ValueSink {
    var values: [String: Value] = [:]
    var failure: StrataError?

    init() { values.reserveCapacity(16) }
}

private struct FlatEncoder: Encoder {
    let sink: ValueSink
    /// The key of the value being encoded (for single values) — keyed children append `.child`.
    let prefix: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedFlatEncoder<Key>(sink: sink, prefix: prefix.isEmpty ? "" : prefix + "."))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        sink.failure = StrataError(
            .typeMismatch, property: prefix,
            "arrays and collections are not storable attributes; use a to-many relationship")
        return UnsupportedUnkeyed()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleFlatEncoder(sink: sink, key: prefix)
    }
}

private struct KeyedFlatEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: ValueSink
    let prefix: String
    var codingPath: [any CodingKey] { [] }

    @inline(__always) private func name(_ key: Key) -> String {
        prefix.isEmpty ? key.stringValue : prefix + key.stringValue
    }

    mutating func encodeNil(forKey key: Key) throws { sink.values[name(key)] = .null }
    mutating func encode(_ value: Bool, forKey key: Key) throws { sink.values[name(key)] = .bool(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { sink.values[name(key)] = .string(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { sink.values[name(key)] = .double(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { sink.values[name(key)] = .double(Double(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { sink.values[name(key)] = .int(Int64(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { sink.values[name(key)] = .int(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { sink.values[name(key)] = .int(Int64(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { sink.values[name(key)] = .int(Int64(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { sink.values[name(key)] = .int(Int64(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { sink.values[name(key)] = .int(Int64(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { sink.values[name(key)] = .int(Int64(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { sink.values[name(key)] = .int(Int64(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        guard let narrowed = Int64(exactly: value) else {
            throw StrataError(.typeMismatch, property: name(key), "\(value) does not fit a 64-bit signed integer")
        }
        sink.values[name(key)] = .int(narrowed)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try encode(UInt64(value), forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let scalar = value as? any AttributeConvertible {
            sink.values[name(key)] = scalar.attributeValue
        } else {
            try value.encode(to: FlatEncoder(sink: sink, prefix: name(key)))
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(KeyedFlatEncoder<NestedKey>(sink: sink, prefix: name(key) + "."))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        FlatEncoder(sink: sink, prefix: name(key)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { FlatEncoder(sink: sink, prefix: String(prefix.dropLast())) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { FlatEncoder(sink: sink, prefix: name(key)) }
}

private struct SingleFlatEncoder: SingleValueEncodingContainer {
    let sink: ValueSink
    let key: String
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { sink.values[key] = .null }
    mutating func encode(_ value: Bool) throws { sink.values[key] = .bool(value) }
    mutating func encode(_ value: String) throws { sink.values[key] = .string(value) }
    mutating func encode(_ value: Double) throws { sink.values[key] = .double(value) }
    mutating func encode(_ value: Float) throws { sink.values[key] = .double(Double(value)) }
    mutating func encode(_ value: Int) throws { sink.values[key] = .int(Int64(value)) }
    mutating func encode(_ value: Int64) throws { sink.values[key] = .int(value) }
    mutating func encode(_ value: Int32) throws { sink.values[key] = .int(Int64(value)) }
    mutating func encode(_ value: Int16) throws { sink.values[key] = .int(Int64(value)) }
    mutating func encode(_ value: Int8) throws { sink.values[key] = .int(Int64(value)) }
    mutating func encode(_ value: UInt32) throws { sink.values[key] = .int(Int64(value)) }
    mutating func encode(_ value: UInt16) throws { sink.values[key] = .int(Int64(value)) }
    mutating func encode(_ value: UInt8) throws { sink.values[key] = .int(Int64(value)) }
    mutating func encode(_ value: UInt64) throws {
        guard let narrowed = Int64(exactly: value) else {
            throw StrataError(.typeMismatch, property: key, "\(value) does not fit a 64-bit signed integer")
        }
        sink.values[key] = .int(narrowed)
    }
    mutating func encode(_ value: UInt) throws { try encode(UInt64(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        if let scalar = value as? any AttributeConvertible {
            sink.values[key] = scalar.attributeValue
        } else {
            try value.encode(to: FlatEncoder(sink: sink, prefix: key))
        }
    }
}

private struct UnsupportedUnkeyed: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        KeyedEncodingContainer(KeyedFlatEncoder<NestedKey>(sink: ValueSink(), prefix: ""))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { FlatEncoder(sink: ValueSink(), prefix: "") }
}
