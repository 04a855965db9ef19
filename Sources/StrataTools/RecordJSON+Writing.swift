import Foundation
import Strata

/// Writing records as JSON lines. The line is built as UTF-8 bytes: a digest hashes those bytes
/// without making a `String` of them, and export makes one per line.
extension RecordJSON {
    /// One record as a JSON line (no newline).
    public static func line(_ record: Record, links: [String: [RecordID]], entity: EntityDescription) -> String {
        var out: [UInt8] = []
        write(record, links: links, entity: entity, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `record`'s line (no newline) to `out`.
    static func write(
        _ record: Record, links: [String: [RecordID]], entity: EntityDescription, into out: inout [UInt8]
    ) {
        out.reserveCapacity(out.count + 256)
        out.append(contentsOf: #"{"entity":"#.utf8)
        string(entity.name, into: &out)
        out.append(contentsOf: #","id":"#.utf8)
        id(record.id, into: &out)
        out.append(contentsOf: #","version":"#.utf8)
        out.append(contentsOf: String(record.version).utf8)
        out.append(contentsOf: #","values":{"#.utf8)
        var first = true
        for name in entity.storedPropertyNames {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            string(name, into: &out)
            out.append(UInt8(ascii: ":"))
            value(record[name], into: &out)
        }
        out.append(contentsOf: #"},"links":{"#.utf8)
        first = true
        for (name, targets) in links.sorted(by: { $0.key < $1.key }) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            string(name, into: &out)
            out.append(contentsOf: ":[".utf8)
            for (index, target) in targets.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                id(target, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(contentsOf: "}}".utf8)
    }

    // MARK: Values

    /// One value as its JSON text (as in a record line).
    public static func text(_ value: Value) -> String {
        var out: [UInt8] = []
        self.value(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func value(_ value: Value, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): out.append(contentsOf: String(number).utf8)
        case .double(let number): double(number, into: &out)
        case .string(let text): string(text, into: &out)
        case .date(let date): double(date.timeIntervalSinceReferenceDate, into: &out)
        case .uuid(let key): uuid(key, into: &out)
        case .data(let data): string(data.base64EncodedString(), into: &out)
        case .decimal(let number): string(DecimalForm.text(number), into: &out)
        case .array, .dictionary, .document: out.append(contentsOf: (CollectionForm.text(value) ?? "null").utf8)
        }
    }

    static func double(_ number: Double, into out: inout [UInt8]) {
        if number.isNaN {
            out.append(contentsOf: #""NaN""#.utf8)
        } else if number.isInfinite {
            out.append(contentsOf: (number > 0 ? #""Infinity""# : #""-Infinity""#).utf8)
        } else {
            out.append(contentsOf: number.description.utf8)
        }
    }

    static func id(_ id: RecordID, into out: inout [UInt8]) {
        switch id {
        case .uuid(let key): uuid(key, into: &out)
        case .string(let text): string(text, into: &out)
        case .int(let number): out.append(contentsOf: String(number).utf8)
        }
    }

    static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `uuid.uuidString` as a JSON string (upper-case hex in 8-4-4-4-12 groups), written here:
    /// Foundation formats it through `sprintf`, which was a tenth of a digest's time.
    static func uuid(_ uuid: UUID, into out: inout [UInt8]) {
        let digits = hexDigits
        out.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: uuid.uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { out.append(UInt8(ascii: "-")) }
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0f)])
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// `text` as a JSON string: `"`, `\` and control characters escaped, every other byte as it is
    /// (only ASCII bytes are escaped, and no byte of a multi-byte UTF-8 sequence is ASCII).
    static func string(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                out.append(contentsOf: #"\u00"#.utf8)
                out.append(lowerHexDigits[Int(byte >> 4)])
                out.append(lowerHexDigits[Int(byte & 0x0f)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static let lowerHexDigits = Array("0123456789abcdef".utf8)
}
