import Foundation
import NIOCore
import PostgresNIO
import StrataStorage

/// How Strata values are stored in PostgreSQL columns, chosen so PostgreSQL's own order is the
/// contract's: booleans as `boolean`, integers `bigint`, doubles `double precision`, dates as
/// `double precision` seconds since 2001-01-01 (`Date`'s own representation, so they round-trip
/// bit for bit — a `timestamp` keeps microseconds only), UUIDs as `uuid` (compared byte by byte),
/// text and file references as `text COLLATE "C"` (UTF-8 byte order, which is Unicode scalar order), data as `bytea`,
/// decimals as `numeric` (exact, ordered numerically); arrays, sets, dictionaries and documents as
/// `jsonb` holding their canonical JSON (an indexed array or set gets a GIN index).
///
/// Values travel in PostgreSQL's binary format, encoded and decoded here, never as SQL text.
enum PostgresValues {
    static func columnType(_ type: AttributeType) -> String {
        switch type {
        case .bool: "boolean"
        case .int: "bigint"
        case .double, .date: "double precision"
        case .string, .file: "text COLLATE \"C\""
        case .uuid: "uuid"
        case .data: "bytea"
        case .decimal: "numeric"
        case .array, .set, .dictionary, .document: "jsonb"
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
        case .string, .file: .text
        case .uuid: .uuid
        case .data: .bytea
        case .decimal: .numeric
        case .array, .set, .dictionary, .document: .jsonb
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
        case .numeric: .numericArray
        case .jsonb: .jsonbArray
        default: .textArray
        }
    }

    /// The wire type of a non-null value (nil for null).
    static func wireType(of value: Value) -> PostgresDataType? {
        switch value {
        case .null: nil
        case .bool: .bool
        case .int: .int8
        case .double, .date: .float8
        case .string: .text
        case .uuid: .uuid
        case .data: .bytea
        case .decimal: .numeric
        case .array, .dictionary, .document: .jsonb
        }
    }

    /// Writes a non-null value's binary form, preceded by its length when `lengthPrefixed` (an
    /// array element); returns false, writing nothing, for null.
    @discardableResult
    static func write(_ value: Value, into buffer: inout ByteBuffer, lengthPrefixed: Bool) -> Bool {
        func length(_ count: Int) { if lengthPrefixed { buffer.writeInteger(Int32(count)) } }
        switch value {
        case .null:
            return false
        case .bool(let flag):
            length(1)
            buffer.writeInteger(UInt8(flag ? 1 : 0))
        case .int(let number):
            length(8)
            buffer.writeInteger(number)
        case .double(let number):
            length(8)
            buffer.writeInteger(number.bitPattern)
        case .date(let date):
            length(8)
            buffer.writeInteger(date.timeIntervalSinceReferenceDate.bitPattern)
        case .string(let text):
            length(text.utf8.count)
            buffer.writeString(text)
        case .uuid(let uuid):
            length(16)
            withUnsafeBytes(of: uuid.uuid) { _ = buffer.writeBytes($0) }
        case .data(let bytes):
            length(bytes.count)
            buffer.writeBytes(bytes)
        case .decimal(let number):
            var body = ByteBuffer()
            number.encode(into: &body, context: .default)
            length(body.readableBytes)
            buffer.writeBuffer(&body)
        case .array, .dictionary, .document:
            // jsonb's binary format: a version byte (1), then the JSON text.
            let text = CollectionForm.text(value) ?? "null"
            length(1 + text.utf8.count)
            buffer.writeInteger(UInt8(1))
            buffer.writeString(text)
        }
        return true
    }

    /// Reads an array, set, dictionary or document column (`jsonb`), by its type and element type.
    static func value(_ cell: PostgresCell, as type: AttributeType, element: AttributeType?) throws -> Value {
        guard var buffer = cell.bytes else { return .null }
        if cell.dataType == .jsonb, buffer.readInteger(as: UInt8.self) == 1,
            let text = buffer.readString(length: buffer.readableBytes),
            let value = CollectionForm.value(json: text, type: type, element: element)
        {
            return value
        }
        throw StrataError(.corruptStore, "a stored \(cell.dataType) value cannot be read as \(type)")
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
        case (.file, .text), (.file, .varchar):
            guard let text = buffer.readString(length: buffer.readableBytes), FileReference.isCanonical(text) else {
                break
            }
            return .string(text)
        case (.uuid, .uuid):
            guard let bytes = buffer.readBytes(length: 16) else { break }
            return .uuid(uuid(bytes))
        case (.data, .bytea):
            return .data(Data(buffer.readableBytesView))
        case (.decimal, .numeric):
            guard let number = try? Decimal(from: &buffer, type: .numeric, format: .binary, context: .default),
                !number.isNaN
            else { break }
            return .decimal(DecimalForm.canonical(number))
        default:
            break
        }
        throw StrataError(.corruptStore, "a stored \(cell.dataType) value cannot be read as \(type)")
    }

    static func recordID(_ cell: PostgresCell, kind: RecordID.Kind) throws -> RecordID {
        let type: AttributeType =
            switch kind {
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
    let value: Value
    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        PostgresValues.write(value, into: &byteBuffer, lengthPrefixed: false)
    }
}

/// A one-dimensional array parameter with null elements allowed, in the binary array format:
/// what `unnest` turns back into rows, so a batch of any size is one statement with one
/// parameter per column. Elements are encoded as they are appended, into one buffer.
struct PostgresWireArray: PostgresDynamicTypeEncodable {
    let element: PostgresDataType
    private var body = ByteBuffer()
    private(set) var count = 0
    private var hasNull = false
    var psqlType: PostgresDataType { PostgresValues.arrayType(element) }
    var psqlFormat: PostgresFormat { .binary }
    var isEmpty: Bool { count == 0 }

    init(element: PostgresDataType) {
        self.element = element
    }

    mutating func append(_ value: Value) {
        count += 1
        if !PostgresValues.write(value, into: &body, lengthPrefixed: true) {
            body.writeInteger(Int32(-1))
            hasNull = true
        }
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        byteBuffer.writeInteger(Int32(1))
        byteBuffer.writeInteger(Int32(hasNull ? 1 : 0))
        byteBuffer.writeInteger(element.rawValue)
        byteBuffer.writeInteger(Int32(count))
        byteBuffer.writeInteger(Int32(1))
        byteBuffer.writeImmutableBuffer(body)
    }
}

extension PostgresBindings {
    /// Binds a Strata value (`NULL` for ``Value/null``).
    mutating func append(strata value: Value) {
        if let type = PostgresValues.wireType(of: value) {
            append(PostgresWireValue(psqlType: type, value: value))
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
