import Foundation

/// Decodes a model straight from a `Record`'s values (the inverse of `RecordEncoder`). A value
/// of the wrong kind, or a required value that is missing, is a `StrataError.Code.typeMismatch`
/// or `StrataError.Code.missingValue` naming the entity, record and property.
enum RecordDecoder {
    static func decode<M: PersistentModel>(_ type: M.Type, from record: Record) throws -> M {
        var record = record
        // An attribute stored under another name is read back under its property's.
        for (property, stored) in M.entity.renamed where property != stored {
            if let value = record.value(named: stored) { record[property] = value }
        }
        do {
            return try M(from: FlatDecoder(record: record, prefix: ""))
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(
                .typeMismatch, entity: record.entity, recordID: record.id, underlying: error,
                "record cannot be read as \(M.self)")
        }
    }
}

private struct FlatDecoder: Decoder {
    let record: Record
    let prefix: String
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedFlatDecoder<Key>(record: record, prefix: prefix.isEmpty ? "" : prefix + "."))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw StrataError(
            .typeMismatch, entity: record.entity, recordID: record.id, property: prefix,
            "arrays and collections are not storable attributes")
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleFlatDecoder(record: record, key: prefix)
    }
}

/// Reads one stored value and converts it, shared by the keyed and single-value containers.
private struct ValueReader {
    let record: Record

    func value(_ key: String) -> Value? {
        key == "id" ? record.id.value : record.value(named: key)
    }

    func mismatch(_ key: String, _ expected: Any.Type, _ found: Value?) -> StrataError {
        guard let found, !found.isNull else {
            return StrataError(
                .missingValue, entity: record.entity, recordID: record.id, property: key,
                "no value for required \(expected)")
        }
        return StrataError(
            .typeMismatch, entity: record.entity, recordID: record.id, property: key,
            "expected \(expected), found \(found)")
    }

    func integer<T: FixedWidthInteger>(_ key: String, _ type: T.Type) throws -> T {
        let found = value(key)
        guard case .int(let stored) = found, let converted = T(exactly: stored) else {
            throw mismatch(key, T.self, found)
        }
        return converted
    }

    func decode<T: Decodable>(_ type: T.Type, _ key: String, nested: () throws -> T) throws -> T {
        let found = value(key)
        // Exact-type checks first: a metatype comparison is far cheaper than a dynamic cast, and
        // these are the generic types every model decodes (dates, UUID IDs and references, bytes).
        switch found {
        case .date(let date)? where T.self == Date.self: return unsafeBitCast(date, to: T.self)
        case .uuid(let uuid)? where T.self == UUID.self: return unsafeBitCast(uuid, to: T.self)
        case .string(let text)? where T.self == String.self: return unsafeBitCast(text, to: T.self)
        case .int(let number)? where T.self == Int64.self: return unsafeBitCast(number, to: T.self)
        case .data(let data)?: if let typed = data as? T { return typed }
        case .decimal(let number)?: if let typed = number as? T { return typed }
        default: break
        }
        if T.self == Date.self || T.self == UUID.self || T.self == Data.self || T.self == Decimal.self {
            throw mismatch(key, T.self, found)
        }
        // Arrays, sets, dictionaries and documents are one value each, read by their own conversion.
        if let found, !found.isScalar {
            guard let convertible = T.self as? any AttributeConvertible.Type,
                let typed = convertible.fromAttributeValue(found) as? T
            else { throw mismatch(key, T.self, found) }
            return typed
        }
        return try nested()
    }
}

private struct KeyedFlatDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let record: Record
    let prefix: String
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] {
        record.layout.names.compactMap {
            $0.hasPrefix(prefix) ? Key(stringValue: String($0.dropFirst(prefix.count))) : nil
        }
    }
    private var reader: ValueReader { ValueReader(record: record) }

    @inline(__always) private func name(_ key: Key) -> String {
        prefix.isEmpty ? key.stringValue : prefix + key.stringValue
    }

    func contains(_ key: Key) -> Bool {
        let full = name(key)
        if reader.value(full) != nil { return true }
        let nestedPrefix = full + "."
        return record.layout.names.contains { $0.hasPrefix(nestedPrefix) }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        let full = name(key)
        guard let value = reader.value(full) else {
            let nestedPrefix = full + "."
            return !record.layout.names.contains { $0.hasPrefix(nestedPrefix) }
        }
        return value.isNull
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let found = reader.value(name(key))
        guard case .bool(let flag) = found else { throw reader.mismatch(name(key), Bool.self, found) }
        return flag
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let found = reader.value(name(key))
        guard case .string(let text) = found else { throw reader.mismatch(name(key), String.self, found) }
        return text
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let found = reader.value(name(key))
        switch found {
        case .double(let number): return number
        case .int(let number): return Double(number)
        default: throw reader.mismatch(name(key), Double.self, found)
        }
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try decode(Double.self, forKey: key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try reader.integer(name(key), Int.self) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try reader.integer(name(key), Int64.self) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try reader.integer(name(key), Int32.self) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try reader.integer(name(key), Int16.self) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try reader.integer(name(key), Int8.self) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try reader.integer(name(key), UInt.self) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try reader.integer(name(key), UInt64.self) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try reader.integer(name(key), UInt32.self) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try reader.integer(name(key), UInt16.self) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try reader.integer(name(key), UInt8.self) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let full = name(key)
        return try reader.decode(type, full) {
            if let identifier = T.self as? any RecordIdentifier.Type {
                let found = reader.value(full)
                guard let id = found.flatMap(RecordID.init), let typed = identifier.init(recordID: id) as? T else {
                    throw reader.mismatch(full, T.self, found)
                }
                return typed
            }
            return try T(from: FlatDecoder(record: record, prefix: full))
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        KeyedDecodingContainer(KeyedFlatDecoder<NestedKey>(record: record, prefix: name(key) + "."))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try FlatDecoder(record: record, prefix: name(key)).unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder { FlatDecoder(record: record, prefix: String(prefix.dropLast())) }
    func superDecoder(forKey key: Key) throws -> any Decoder { FlatDecoder(record: record, prefix: name(key)) }
}

private struct SingleFlatDecoder: SingleValueDecodingContainer {
    let record: Record
    let key: String
    var codingPath: [any CodingKey] { [] }
    private var reader: ValueReader { ValueReader(record: record) }

    func decodeNil() -> Bool { reader.value(key)?.isNull ?? true }
    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = reader.value(key) else { throw reader.mismatch(key, Bool.self, reader.value(key)) }
        return flag
    }
    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = reader.value(key) else {
            throw reader.mismatch(key, String.self, reader.value(key))
        }
        return text
    }
    func decode(_ type: Double.Type) throws -> Double {
        switch reader.value(key) {
        case .double(let number)?: return number
        case .int(let number)?: return Double(number)
        default: throw reader.mismatch(key, Double.self, reader.value(key))
        }
    }
    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try reader.integer(key, Int.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try reader.integer(key, Int64.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try reader.integer(key, Int32.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try reader.integer(key, Int16.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try reader.integer(key, Int8.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try reader.integer(key, UInt.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.integer(key, UInt64.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.integer(key, UInt32.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.integer(key, UInt16.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.integer(key, UInt8.self) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try reader.decode(type, key) { try T(from: FlatDecoder(record: record, prefix: key)) }
    }
}
