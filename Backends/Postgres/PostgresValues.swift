import Foundation
import NIOCore
import PostgresNIO
import Strata

/// How Strata values are stored in PostgreSQL columns, chosen so PostgreSQL's own order is the
/// contract's: booleans as `boolean`, integers `bigint`, doubles `double precision`, dates as
/// `double precision` seconds since 2001-01-01 (`Date`'s own representation, so they round-trip
/// bit for bit — a `timestamp` keeps microseconds only), UUIDs as `uuid` (compared byte by byte),
/// text as `text COLLATE "C"` (UTF-8 byte order, which is Unicode scalar order), data as `bytea`.
///
/// Values travel in PostgreSQL's binary format, encoded and decoded here, never as SQL text.
enum PostgresValues {
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .bool: "boolean"
        case .int: "bigint"
        case .double, .date: "double precision"
        case .string: "text COLLATE \"C\""
        case .uuid: "uuid"
        case .data: "bytea"
        }
    }

    static func columnType(_ kind: RecordID.Kind) -> String {
        switch kind {
        case .uuid: "uuid"
        case .string: "text COLLATE \"C\""
        case .int: "bigint"
        }
    }

    /// The wire type of a column of `type`.
    static func wireType(_ type: AttributeType) -> PostgresDataType {
        switch type {
        case .bool: .bool
        case .int: .int8
        case .double, .date: .float8
        case .string: .text
        case .uuid: .uuid
        case .data: .bytea
        }
    }

    static func wireType(_ kind: RecordID.Kind) -> PostgresDataType {
        switch kind {
        case .uuid: .uuid
        case .string: .text
        case .int: .int8
        }
    }

    static func arrayType(_ element: PostgresDataType) -> PostgresDataType {
        switch element {
        case .bool: .boolArray
        case .int8: .int8Array
        case .float8: .float8Array
        case .uuid: .uuidArray
        case .bytea: .byteaArray
        default: .textArray
        }
    }

    /// The wire type and binary form of a non-null value (nil for null).
    static func wire(_ value: Value) -> (type: PostgresDataType, bytes: [UInt8])? {
        switch value {
        case .null: return nil
        case .bool(let flag): return (.bool, [flag ? 1 : 0])
        case .int(let number): return (.int8, bigEndian(UInt64(bitPattern: number)))
        case .double(let number): return (.float8, bigEndian(number.bitPattern))
        case .date(let date): return (.float8, bigEndian(date.timeIntervalSinceReferenceDate.bitPattern))
        case .string(let text): return (.text, Array(text.utf8))
        case .uuid(let uuid): return (.uuid, withUnsafeBytes(of: uuid.uuid) { Array($0) })
        case .data(let bytes): return (.bytea, Array(bytes))
        }
    }

    static func bigEndian(_ bits: UInt64) -> [UInt8] {
        withUnsafeBytes(of: bits.bigEndian) { Array($0) }
    }

    /// Reads a column the schema types as `type`; another wire type is damaged data.
    static func value(_ cell: PostgresCell, as type: AttributeType) throws -> Value {
        guard var buffer = cell.bytes else { return .null }
        switch (type, cell.dataType) {
        case (.bool, .bool):
            guard let byte = buffer.readInteger(as: UInt8.self) else { break }
            return .bool(byte != 0)
        case (.int, .int8):
            guard let number = buffer.readInteger(as: Int64.self) else { break }
            return .int(number)
        case (.double, .float8):
            guard let bits = buffer.readInteger(as: UInt64.self) else { break }
            return .double(Double(bitPattern: bits))
        case (.date, .float8):
            guard let bits = buffer.readInteger(as: UInt64.self) else { break }
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)))
        case (.string, .text), (.string, .varchar):
            guard let text = buffer.readString(length: buffer.readableBytes) else { break }
            return .string(text)
        case (.uuid, .uuid):
            guard let bytes = buffer.readBytes(length: 16) else { break }
            return .uuid(uuid(bytes))
        case (.data, .bytea):
            return .data(Data(buffer.readableBytesView))
        default:
            break
        }
        throw StrataError(.corruptStore, "a stored \(cell.dataType) value cannot be read as \(type)")
    }

    static func recordID(_ cell: PostgresCell, kind: RecordID.Kind) throws -> RecordID {
        let type: AttributeType = switch kind {
        case .uuid: .uuid
        case .string: .string
        case .int: .int
        }
        switch try value(cell, as: type) {
        case .uuid(let uuid): return .uuid(uuid)
        case .string(let text): return .string(text)
        case .int(let number): return .int(number)
        default: throw StrataError(.corruptStore, "a stored ID is missing")
        }
    }

    static func uuid(_ bytes: [UInt8]) -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: bytes.prefix(16)) }
        return UUID(uuid: raw)
    }
}

/// One bound value in PostgreSQL's binary format.
struct PostgresWireValue: PostgresDynamicTypeEncodable {
    let psqlType: PostgresDataType
    let bytes: [UInt8]
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeBytes(bytes)
    }
}

/// A one-dimensional array parameter with null elements allowed, in the binary array format:
/// what `unnest` turns back into rows, so a batch of any size is one statement with one
/// parameter per column.
struct PostgresWireArray: PostgresDynamicTypeEncodable {
    let element: PostgresDataType
    var elements: [[UInt8]?] = []
    var psqlType: PostgresDataType { PostgresValues.arrayType(element) }
    var psqlFormat: PostgresFormat { .binary }

    init(element: PostgresDataType) {
        self.element = element
    }

    mutating func append(_ value: Value) {
        elements.append(PostgresValues.wire(value)?.bytes)
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(Int32(1))
        byteBuffer.writeInteger(Int32(elements.contains(where: { $0 == nil }) ? 1 : 0))
        byteBuffer.writeInteger(element.rawValue)
        byteBuffer.writeInteger(Int32(elements.count))
        byteBuffer.writeInteger(Int32(1))
        for element in elements {
            if let element {
                byteBuffer.writeInteger(Int32(element.count))
                byteBuffer.writeBytes(element)
            } else {
                byteBuffer.writeInteger(Int32(-1))
            }
        }
    }
}

extension PostgresBindings {
    /// Binds a Strata value (`NULL` for ``Value/null``).
    mutating func append(strata value: Value) {
        if let wire = PostgresValues.wire(value) {
            append(PostgresWireValue(psqlType: wire.type, bytes: wire.bytes))
        } else {
            appendNull()
        }
    }

    mutating func append(strataID id: RecordID) {
        append(strata: id.value)
    }
}

/// SQL identifiers are always quoted; names come from the schema, never from values.
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
