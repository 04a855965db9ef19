import Foundation
import StrataStorage

/// A small JSON writer for the document and journal. Foundation's `JSONSerialization` sorts keys
/// through bridged string comparisons and spent 80% of a large save doing it; this writer emits the
/// known shapes directly, with keys in a fixed order, so output is deterministic and cheap.
struct JSONText {
    var bytes: [UInt8] = []

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func string(_ text: String) {
        bytes.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
            case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
            case 0..<0x20: raw(String(format: "\\u%04x", Int(byte)))
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }

    /// Finite doubles in Swift's shortest round-trip form; non-finite ones as strings, since JSON
    /// has no literal for them (the reader accepts both).
    mutating func double(_ number: Double) {
        if number.isFinite { raw(String(number)) } else { string(String(number)) }
    }

    mutating func value(_ value: Value) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): raw(flag ? "true" : "false")
        case .int(let number): raw(String(number))
        case .double(let number): double(number)
        case .string(let text): string(text)
        case .date(let date): string(JSONValues.text(date))
        case .uuid(let uuid): string(uuid.uuidString)
        case .data(let data): string(data.base64EncodedString())
        case .decimal(let number): string(DecimalForm.text(number))
        // Arrays, sets, dictionaries and documents embedded as their canonical JSON.
        case .array, .dictionary, .document: raw(CollectionForm.text(value) ?? "null")
        }
    }

    mutating func id(_ id: RecordID) {
        if case .int(let number) = id { raw(String(number)) } else { string(id.description) }
    }

    /// A record's `{"name": value, …}`, keys sorted, on one line.
    mutating func values(of record: Record) {
        raw("{")
        for (index, slot) in record.layout.slotsByName.enumerated() {
            if index > 0 { raw(", ") }
            string(record.layout.names[slot])
            raw(": ")
            value(record.slots[slot])
        }
        raw("}")
    }
}
