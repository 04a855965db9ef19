import Foundation
import Strata

/// Writing a subscription's `$name` parameters into its filter text as literals.
extension SyncSubscription {
    /// `text` with each `$name` outside a quoted literal replaced by its value as a literal.
    static func substitute(_ parameters: [String: Value], into text: String) throws -> String {
        let characters = Array(text)
        var output = ""
        var index = 0
        var quoted = false
        while index < characters.count {
            let character = characters[index]
            if quoted {
                output.append(character)
                if character == "\\", index + 1 < characters.count {
                    output.append(characters[index + 1])
                    index += 2
                    continue
                }
                if character == "\"" { quoted = false }
                index += 1
                continue
            }
            if character == "\"" { quoted = true }
            guard character == "$" else {
                output.append(character)
                index += 1
                continue
            }
            var end = index + 1
            while end < characters.count, characters[end].isLetter || characters[end].isNumber || characters[end] == "_"
            {
                end += 1
            }
            let name = String(characters[(index + 1)..<end])
            guard !name.isEmpty else { throw StrataError(.invalidQuery, "column \(index + 1): `$` needs a name") }
            guard let value = parameters[name] else {
                throw StrataError(.invalidQuery, "column \(index + 1): no value for the parameter $\(name)")
            }
            output += try literal(value, parameter: name)
            index = end
        }
        return output
    }

    /// A value as the filter language reads it back exactly.
    static func literal(_ value: Value, parameter: String) throws -> String {
        switch value {
        case .null: return "nil"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number) where number.isFinite: return "\(number)"
        case .string(let text): return quote(text)
        case .uuid(let uuid): return quote(uuid.uuidString)
        case .data(let data): return quote(data.base64EncodedString())
        case .date(let date) where date.timeIntervalSinceReferenceDate.isFinite:
            return "\(date.timeIntervalSinceReferenceDate)"
        case .array(let values):
            return "[" + (try values.map { try literal($0, parameter: parameter) }.joined(separator: ", ")) + "]"
        default:
            throw StrataError(
                .invalidQuery, "the parameter $\(parameter) holds a value the filter language cannot write: \(value)")
        }
    }

    private static func quote(_ text: String) -> String {
        var quoted = "\""
        for character in text {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
