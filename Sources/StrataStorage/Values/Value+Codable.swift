import Foundation

/// Arrays hold their elements' own encodings, dictionaries an object of them, documents their
/// canonical JSON as text.
///
/// `Value` in any `Codable` format (sync messages travel as JSON): one key naming the kind, holding
/// the payload under `_0` — `{"double": {"_0": 1.5}}`, `{"null": {}}`. JSON has no literal for
/// ±infinity, which are ordinary values (see ``ValueRules``), so a non-finite double is written as
/// the text `"+Infinity"` or `"-Infinity"`; every other value uses its type's own encoding.
extension Value: Codable {
    private enum Kind: String, CodingKey {
        case null, bool, int, double, string, date, uuid, data, decimal, array, dictionary, document
    }

    private enum Payload: String, CodingKey {
        case _0
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        guard container.allKeys.count == 1, let kind = container.allKeys.first else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: container.codingPath, debugDescription: "a value names exactly one kind"))
        }
        let payload = try container.nestedContainer(keyedBy: Payload.self, forKey: kind)
        switch kind {
        case .null: self = .null
        case .bool: self = .bool(try payload.decode(Bool.self, forKey: ._0))
        case .int: self = .int(try payload.decode(Int64.self, forKey: ._0))
        case .double:
            if let number = try? payload.decode(Double.self, forKey: ._0) {
                self = .double(number)
            } else {
                switch try payload.decode(String.self, forKey: ._0) {
                case "+Infinity": self = .double(.infinity)
                case "-Infinity": self = .double(-.infinity)
                case let text:
                    throw DecodingError.dataCorruptedError(
                        forKey: ._0, in: payload, debugDescription: "\(text) is not a number")
                }
            }
        case .string: self = .string(try payload.decode(String.self, forKey: ._0))
        case .date: self = .date(try payload.decode(Date.self, forKey: ._0))
        case .uuid: self = .uuid(try payload.decode(UUID.self, forKey: ._0))
        case .data: self = .data(try payload.decode(Data.self, forKey: ._0))
        case .decimal:
            let text = try payload.decode(String.self, forKey: ._0)
            guard let number = DecimalForm.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: ._0, in: payload, debugDescription: "\(text) is not a decimal")
            }
            self = .decimal(number)
        case .array: self = .array(try payload.decode([Value].self, forKey: ._0))
        case .dictionary: self = .dictionary(try payload.decode([String: Value].self, forKey: ._0))
        case .document: self = .document(try payload.decode(String.self, forKey: ._0))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Kind.self)
        switch self {
        case .null: _ = container.nestedContainer(keyedBy: Payload.self, forKey: .null)
        case .bool(let flag): try container.encode([Payload._0.rawValue: flag], forKey: .bool)
        case .int(let number): try container.encode([Payload._0.rawValue: number], forKey: .int)
        case .double(let number) where !number.isFinite && !number.isNaN:
            try container.encode([Payload._0.rawValue: number > 0 ? "+Infinity" : "-Infinity"], forKey: .double)
        case .double(let number): try container.encode([Payload._0.rawValue: number], forKey: .double)
        case .string(let text): try container.encode([Payload._0.rawValue: text], forKey: .string)
        case .date(let date): try container.encode([Payload._0.rawValue: date], forKey: .date)
        case .uuid(let uuid): try container.encode([Payload._0.rawValue: uuid], forKey: .uuid)
        case .data(let bytes): try container.encode([Payload._0.rawValue: bytes], forKey: .data)
        case .decimal(let number):
            try container.encode([Payload._0.rawValue: DecimalForm.text(number)], forKey: .decimal)
        case .array(let elements): try container.encode([Payload._0.rawValue: elements], forKey: .array)
        case .dictionary(let entries): try container.encode([Payload._0.rawValue: entries], forKey: .dictionary)
        case .document(let text): try container.encode([Payload._0.rawValue: text], forKey: .document)
        }
    }
}
