import Foundation
import StrataStorage

/// Reading values back from the document and the journal (``JSONText`` writes them): natural JSON
/// chosen by the schema's types — booleans, numbers, strings, ISO-8601 dates (exact, see ``text(_:)``),
/// UUID strings, base64 bytes, decimals as their exact text in a string ("12.5"); arrays, sets,
/// dictionaries and documents as their canonical JSON, embedded (``CollectionForm``).
enum JSONValues {
    static func decode(
        _ json: Any?, as type: AttributeType, element: AttributeType? = nil, _ context: @autoclosure () -> String
    ) throws -> Value {
        guard let json, !(json is NSNull) else { return .null }
        switch type {
        case .array, .set, .dictionary, .document:
            if let value = CollectionForm.value(parsed: json, type: type, element: element) { return value }
        case .bool: if let flag = json as? Bool { return .bool(flag) }
        case .int: if let exact = integer(json) { return .int(exact) }
        case .double:
            if let number = json as? NSNumber { return .double(number.doubleValue) }
            if let text = json as? String, let number = Double(text), !number.isFinite { return .double(number) }
        case .string: if let text = json as? String { return .string(text) }
        case .file: if let text = json as? String, FileReference.isCanonical(text) { return .string(text) }
        case .date: if let text = json as? String, let date = date(text) { return .date(date) }
        case .uuid: if let text = json as? String, let uuid = UUID(uuidString: text) { return .uuid(uuid) }
        case .data: if let text = json as? String, let data = Data(base64Encoded: text) { return .data(data) }
        case .decimal: if let text = json as? String, let number = DecimalForm.parse(text) { return .decimal(number) }
        }
        throw StrataError(.corruptStore, "\(context()): \(json) is not a \(type)")
    }

    /// A JSON integer, exactly: through `Int64` (a detour through `Double` would lose every value
    /// beyond 2^53), or a whole number written as a double.
    static func integer(_ json: Any?) -> Int64? {
        if let number = json as? Int64 { return number }
        if let number = json as? NSNumber { return Int64(exactly: number.doubleValue) }
        return nil
    }

    static func idKey(_ id: RecordID) -> String { id.description }

    static func id(_ key: String, kind: RecordID.Kind) -> RecordID? {
        switch kind {
        case .uuid: UUID(uuidString: key).map(RecordID.uuid)
        case .string: .string(key)
        case .int: Int64(key).map(RecordID.int)
        }
    }

    static func id(json: Any?, kind: RecordID.Kind) -> RecordID? {
        if kind == .int, json is NSNumber { return integer(json).map(RecordID.int) }
        return (json as? String).flatMap { id($0, kind: kind) }
    }

    /// A date as text that reads back bit-exactly: `2026-01-01T00:00:00.123456Z` (ISO-8601 with
    /// microseconds) when that is exact, which it is for most dates people write; otherwise the
    /// readable form followed by `|` and the exact `timeIntervalSinceReferenceDate` (Date's own
    /// value, in Swift's shortest round-trip form): `2001-01-01T00:00:00.333333Z|0.3333333333333333`.
    static func text(_ date: Date) -> String {
        let (readable, readBack) = iso8601(date)
        // Years 1…9999 are the ones ISO-8601 text reads back; the exact value carries the rest.
        let fourDigitYears = -62_135_596_800.0...253_402_300_799.0
        if fourDigitYears.contains(date.timeIntervalSince1970),
            readBack.timeIntervalSinceReferenceDate.bitPattern == date.timeIntervalSinceReferenceDate.bitPattern
        {
            return readable
        }
        return readable + "|" + String(date.timeIntervalSinceReferenceDate)
    }

    /// `2026-01-01T00:00:00.123456Z`: whole seconds by ISO-8601, then microseconds; with the date
    /// ``date(_:)`` will read back from it, computed the same way rather than by parsing.
    static func iso8601(_ date: Date) -> (text: String, readBack: Date) {
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let seconds = (micros / 1_000_000).rounded(.down)
        let fraction = Int(micros - seconds * 1_000_000)
        let base = Date(timeIntervalSince1970: seconds).formatted(.iso8601)
        let text = String(base.dropLast()) + "." + String(format: "%06d", fraction) + "Z"
        return (text, Date(timeIntervalSince1970: seconds + Double(fraction) / 1_000_000))
    }

    static func date(_ text: String) -> Date? {
        if let bar = text.lastIndex(of: "|") {
            guard let seconds = Double(text[text.index(after: bar)...]), seconds.isFinite else { return nil }
            return Date(timeIntervalSinceReferenceDate: seconds)
        }
        guard text.hasSuffix("Z"), let dot = text.lastIndex(of: ".") else { return try? Date(text, strategy: .iso8601) }
        guard let base = try? Date(String(text[..<dot]) + "Z", strategy: .iso8601),
            let micros = Int(text[text.index(after: dot)..<text.index(before: text.endIndex)])
        else { return nil }
        return Date(timeIntervalSince1970: base.timeIntervalSince1970 + Double(micros) / 1_000_000)
    }
}
