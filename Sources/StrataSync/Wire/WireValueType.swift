import Foundation
import Strata

/// A property's type in wire format 2's type map, and how a value of it is written as a plain
/// JSON scalar:
///
/// | type | JSON |
/// |---|---|
/// | `bool` | `true` / `false` |
/// | `int` | an integer (64-bit) |
/// | `double` | a number in shortest exact form; `"+Infinity"` / `"-Infinity"` |
/// | `string` | text |
/// | `date` | seconds since 2001-01-01T00:00:00Z as a number (add 978307200 for Unix time), exact |
/// | `uuid` | text, `8-4-4-4-12` hexadecimal |
/// | `data` | text, base64 |
/// | `decimal` | text, the canonical decimal (`"1.1"`, `"-0.005"`) |
/// | `document` | text, the canonical JSON of the document |
/// | `array<T>` | an array of `T` (`array` when empty) |
/// | `dictionary<T>` | an object of `T` (`dictionary` when empty) |
/// | `null` | `null` (every value of the column is null) |
///
/// A null of any type is `null`.
indirect enum WireValueType: Hashable, Sendable {
    case null, bool, int, double, string, date, uuid, data, decimal, document
    case array(WireValueType?)
    case dictionary(WireValueType?)

    /// The type a value is written as.
    init(of value: Value) throws {
        switch value {
        case .null: self = .null
        case .bool: self = .bool
        case .int: self = .int
        case .double: self = .double
        case .string: self = .string
        case .date: self = .date
        case .uuid: self = .uuid
        case .data: self = .data
        case .decimal: self = .decimal
        case .document: self = .document
        case .array(let elements):
            self = .array(try Self.element(of: elements))
        case .dictionary(let entries):
            self = .dictionary(try Self.element(of: Array(entries.values)))
        }
    }

    /// The one scalar type of a collection's elements (`nil` when it has none).
    private static func element(of elements: [Value]) throws -> WireValueType? {
        guard let first = elements.first else { return nil }
        let type = try WireValueType(of: first)
        guard type.isScalar, elements.allSatisfy({ (try? WireValueType(of: $0)) == type }) else {
            throw StrataError(.typeMismatch, "a collection's elements must be non-null scalars of one type")
        }
        return type
    }

    private var isScalar: Bool {
        switch self {
        case .null, .array, .dictionary: false
        default: true
        }
    }

    /// The type's name in the type map.
    var name: String {
        switch self {
        case .null: "null"
        case .bool: "bool"
        case .int: "int"
        case .double: "double"
        case .string: "string"
        case .date: "date"
        case .uuid: "uuid"
        case .data: "data"
        case .decimal: "decimal"
        case .document: "document"
        case .array(let element): element.map { "array<\($0.name)>" } ?? "array"
        case .dictionary(let element): element.map { "dictionary<\($0.name)>" } ?? "dictionary"
        }
    }

    /// The type a type map names, or `nil` for a name this format does not define.
    init?(name: String) {
        switch name {
        case "null": self = .null
        case "bool": self = .bool
        case "int": self = .int
        case "double": self = .double
        case "string": self = .string
        case "date": self = .date
        case "uuid": self = .uuid
        case "data": self = .data
        case "decimal": self = .decimal
        case "document": self = .document
        case "array": self = .array(nil)
        case "dictionary": self = .dictionary(nil)
        default:
            for (prefix, make) in [("array<", Self.array), ("dictionary<", Self.dictionary)]
            where name.hasPrefix(prefix) && name.hasSuffix(">") {
                guard let element = WireValueType(name: String(name.dropFirst(prefix.count).dropLast())),
                    element.isScalar
                else { return nil }
                self = make(element)
                return
            }
            return nil
        }
    }

    /// Writes a value of this type.
    func write(_ value: Value, to writer: inout JSONWriter) {
        switch value {
        case .null: writer.null()
        case .bool(let flag): writer.bool(flag)
        case .int(let number): writer.int(number)
        case .double(let number): writer.double(number)
        case .string(let text), .document(let text): writer.string(text)
        case .date(let date): writer.double(date.timeIntervalSinceReferenceDate)
        case .uuid(let uuid): writer.string(WireUUID.text(uuid))
        case .data(let bytes): writer.string(bytes.base64EncodedString())
        case .decimal(let number): writer.string(DecimalForm.text(number))
        case .array(let elements):
            writer.byte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                write(element, to: &writer)
            }
            writer.byte(UInt8(ascii: "]"))
        case .dictionary(let entries):
            writer.byte(UInt8(ascii: "{"))
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { writer.byte(UInt8(ascii: ",")) }
                writer.string(key)
                writer.byte(UInt8(ascii: ":"))
                write(entries[key] ?? .null, to: &writer)
            }
            writer.byte(UInt8(ascii: "}"))
        }
    }

    /// Reads a value of this type (or `null`).
    func read(from reader: inout JSONReader) throws -> Value {
        if try reader.readNull() { return .null }
        switch self {
        case .null: throw reader.fail("a value in a column of type null")
        case .bool: return .bool(try reader.readBool())
        case .int: return .int(try reader.readInt())
        case .double:
            guard reader.peek() == UInt8(ascii: "\"") else { return .double(try reader.readDouble()) }
            switch try reader.readString() {
            case "+Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            default: throw reader.fail("expected a number")
            }
        case .string: return .string(try reader.readString())
        case .document: return .document(try reader.readString())
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try reader.readDouble()))
        case .uuid:
            guard let uuid = WireUUID.parse(try reader.readString()) else { throw reader.fail("expected a UUID") }
            return .uuid(uuid)
        case .data:
            guard let bytes = Data(base64Encoded: try reader.readString()) else { throw reader.fail("expected base64") }
            return .data(bytes)
        case .decimal:
            guard let number = DecimalForm.parse(try reader.readString()) else {
                throw reader.fail("expected a decimal")
            }
            return .decimal(number)
        case .array(let element):
            var elements: [Value] = []
            try reader.array { reader in
                guard let element else { throw reader.fail("an element in an empty array's column") }
                elements.append(try element.readElement(from: &reader))
            }
            return .array(elements)
        case .dictionary(let element):
            var entries: [String: Value] = [:]
            try reader.object { reader, key in
                guard let element else { throw reader.fail("an entry in an empty dictionary's column") }
                entries[key] = try element.readElement(from: &reader)
            }
            return .dictionary(entries)
        }
    }

    private func readElement(from reader: inout JSONReader) throws -> Value {
        let value = try read(from: &reader)
        guard !value.isNull else { throw reader.fail("a null element") }
        return value
    }
}
