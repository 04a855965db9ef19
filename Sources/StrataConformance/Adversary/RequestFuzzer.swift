import Foundation
import Strata
import StrataSync

/// Seeded hostile requests, generated from the wire format and the subscription grammar: every
/// route and random ones, every method, boundary integers and wrong types in the query, filters
/// deep and long and malformed, bodies valid, damaged, nested, huge and not text, tokens missing
/// and wrong. The same seed gives the same requests, so a failure replays from `seed` and its
/// index alone.
struct RequestFuzzer {
    var random: SeededRandom
    /// Bodies of real pushes to damage (format 2 and 1).
    let pushes: [[UInt8]]
    /// The entities, relationships and attributes the filters name.
    let schema: Schema

    init(seed: UInt64, pushes: [[UInt8]], schema: Schema) {
        random = SeededRandom(seed: seed)
        self.pushes = pushes
        self.schema = schema
    }

    static let integers = [
        "0", "1", "-1", "2", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
        "99999999999999999999999", "1e3", "0x10", "", " 1", "1.5", "NaN", "null", "٣",
    ]

    mutating func request() -> SyncWire.Request {
        let route = random.int(0...9)
        var request: SyncWire.Request
        switch route {
        case 0...2: request = pull()
        case 3...4: request = snapshot()
        case 5...7: request = push()
        case 8: request = file()
        default: request = SyncWire.Request(method: method(), path: junkPath())
        }
        if random.chance(0.15) { request.method = method() }
        request.headers["authorization"] = authorization()
        return request
    }

    mutating func method() -> String {
        random.pick(["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "get", "FOO"])
    }

    mutating func authorization() -> String? {
        switch random.int(0...19) {
        case 0: return nil
        case 1: return "Bearer "
        case 2: return "Basic dG9rZW4tYQ=="
        case 3: return "Bearer token-a token-b"
        case 4: return "Bearer " + String(repeating: "x", count: random.int(1...9_000))
        default: return "Bearer token-a"
        }
    }

    mutating func junkPath() -> String {
        random.pick([
            "/", "/strata", "/strata/v1", "/strata/v1/", "/strata/v2/pull", "/strata/v1/pull/", "/strata/v1/push/x",
            "/strata/v1/files", "/strata/v1/files/", "/strata/v1/%00", "/strata/v1/..%2F..%2Fetc", "//strata/v1/pull",
            "/strata/v1/" + String(repeating: "a", count: random.int(1...6_000)),
        ])
    }

    mutating func integer() -> String { random.pick(Self.integers) + (random.chance(0.05) ? "x" : "") }

    mutating func common() -> [String: String] {
        var query: [String: String] = [:]
        if random.chance(0.9) { query["v"] = random.chance(0.7) ? random.pick(["1", "2"]) : integer() }
        if random.chance(0.9) {
            query["client"] =
                random.chance(0.8) ? "a" : random.pick(["b", "", "a\u{0}", String(repeating: "c", count: 3_000)])
        }
        if random.chance(0.2) { query["schema"] = random.pick(["", "1", "x", String(repeating: "9", count: 500)]) }
        if random.chance(0.5) { query["subscriptions"] = subscriptions() }
        if random.chance(0.05) { query[random.pick(["zzz", "", "v ", "limit[]"])] = integer() }
        return query
    }

    mutating func pull() -> SyncWire.Request {
        var query = common()
        if random.chance(0.5) { query["cursor"] = integer() }
        if random.chance(0.3) { query["epoch"] = random.pick(["", "x", "0", String(repeating: "e", count: 200)]) }
        if random.chance(0.5) { query["limit"] = integer() }
        // Waits stay short: the server bounds them (the world's limit is 20 ms).
        if random.chance(0.3) { query["wait"] = random.pick(["0", "1", "5", "-1", "x", "999999999999"]) }
        return SyncWire.Request(method: "GET", path: SyncWire.pullPath, query: query)
    }

    mutating func snapshot() -> SyncWire.Request {
        var query = common()
        if random.chance(0.6) { query["entity"] = random.pick(schema.entities.map(\.name) + ["", "Nope", "person"]) }
        if random.chance(0.4) { query["after"] = random.pick(["", "x", "u:" + UUID().uuidString, "s:a", "i:-1", "%"]) }
        if random.chance(0.5) { query["limit"] = integer() }
        return SyncWire.Request(method: "GET", path: SyncWire.snapshotPath, query: query)
    }

    mutating func file() -> SyncWire.Request {
        let digest =
            random.chance(0.7)
            ? String((0..<64).map { _ in random.pick(Array("0123456789abcdef")) })
            : random.pick(["", "x", String(repeating: "0", count: 63), String(repeating: "G", count: 64)])
        var query: [String: String] = [:]
        if random.chance(0.9) { query["size"] = integer() }
        if random.chance(0.7) { query["offset"] = integer() }
        let method = random.pick(["GET", "PUT", "PUT"])
        return SyncWire.Request(
            method: method, path: SyncWire.filesPath + digest, query: query,
            body: method == "PUT" ? garbage(random.int(0...4_096)) : [])
    }

    mutating func push() -> SyncWire.Request {
        var body: [UInt8]
        switch random.int(0...5) {
        case 0: body = random.pick(pushes)
        case 1:
            body = random.pick(pushes)
            for _ in 0..<random.int(1...8) where !body.isEmpty {
                body[random.below(body.count)] = random.pick(Array("{}[]\",:0-9ae\\ ".utf8))
            }
        case 2:
            body = random.pick(pushes)
            body = Array(body.prefix(random.below(body.count + 1)))
        case 3: body = Array(nested(random.int(0...200)).utf8)
        case 4: body = garbage(random.int(0...20_000))
        default:
            let client = random.pick(["\"a\"", "1", "null", "[]"])
            let (shapes, rows) = (nested(random.int(0...3)), nested(random.int(0...3)))
            body = Array(
                #"{"version":\#(integer()),"clientID":\#(client),"shapes":\#(shapes),"mutations":\#(rows)}"#.utf8)
        }
        return SyncWire.Request(
            method: "POST", path: SyncWire.pushPath, headers: ["content-type": "application/json"], body: body)
    }

    /// JSON nested `depth` levels, of random kinds.
    mutating func nested(_ depth: Int) -> String {
        var text = random.pick(["1", "\"x\"", "null", "true", "-0.5e300", "{}", "[]"])
        for _ in 0..<depth { text = random.chance(0.5) ? "[\(text)]" : "{\"k\":\(text)}" }
        return text
    }

    mutating func garbage(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// A subscriptions query item: valid JSON arrays of random subscriptions, or not JSON at all.
    mutating func subscriptions() -> String {
        if random.chance(0.1) { return random.pick(["", "[", "{}", "null", "[1]", nested(random.int(0...100))]) }
        let count = random.chance(0.05) ? random.int(60...70) : random.int(0...3)
        let items = (0..<count).map { index -> String in
            let entity = random.chance(0.9) ? random.pick(schema.entities.map(\.name)) : random.pick(["", "Nope", "#"])
            var object = #"{"name":"s\#(index)","entity":\#(jsonString(entity))"#
            if random.chance(0.8), let description = schema.entity(entity) {
                // Mostly shallow; now and then as deep as the length limit lets a filter be.
                let depth =
                    random.chance(0.75)
                    ? random.int(0...24) : random.chance(0.4) ? random.int(25...200) : random.int(800...3_000)
                object += #","where":\#(jsonString(filter(description, depth: depth)))"#
            }
            if random.chance(0.2) {
                object += #","include":[\#(jsonString(random.pick(["trips", "stops", "x", "trips.stops", ""])))]"#
            }
            return object + "}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// A filter over `entity` from the grammar, nested about `depth` levels, sometimes broken.
    mutating func filter(_ entity: EntityDescription, depth: Int) -> String {
        var text = comparison(entity, steps: random.chance(0.3) ? random.int(0...min(depth, 300)) : 0)
        // Deep filters are mostly runs of one kind (what a hostile client writes); shallow ones mix.
        if depth > 24, random.chance(0.7) {
            let unary = random.pick(["!", "!", "!", "(", "!("])
            text =
                String(repeating: unary, count: depth) + text + String(repeating: ")", count: unary == "!" ? 0 : depth)
            return text
        }
        for _ in 0..<depth {
            switch random.int(0...4) {
            case 0: text = "!" + text
            case 1: text = "(" + text + ")"
            case 2: text = text + " && " + comparison(entity, steps: 0)
            case 3: text = comparison(entity, steps: 0) + " || " + text
            default: text = "!(" + text + ")"
            }
        }
        if random.chance(0.05) { text = String(text.prefix(random.below(text.count + 1))) }
        if random.chance(0.02) { text += String(repeating: " ", count: 5_000) }
        return text
    }

    mutating func comparison(_ entity: EntityDescription, steps: Int) -> String {
        var entity = entity
        var path = ""
        for _ in 0..<steps {
            let toOnes = entity.relationships.filter(\.isToOne)
            guard let step = toOnes.isEmpty ? nil : random.pick(toOnes), let next = schema.entity(step.destination)
            else { break }
            path += step.name + "."
            entity = next
        }
        // Mostly well typed, so that filters reach evaluation; now and then anything.
        let attributes = entity.attributes.filter { [.string, .int, .double, .bool, .date].contains($0.type) }
        guard random.chance(0.85), let attribute = attributes.isEmpty ? nil : random.pick(attributes) else {
            path += random.pick(entity.attributes.map(\.name) + ["id", "nope"])
            let op = random.pick(["==", "!=", "<", "hasPrefix", "contains", "in", "=~"])
            let literal = random.pick([
                "\"A\"", "1", "-1", "1e308", "9223372036854775808", "nil", "true", "[\"x\", 1]", "[]", "\"\\\"\"",
                "\"\u{1F600}\"",
            ])
            return "\(path) \(op) \(literal)"
        }
        path += attribute.name
        switch attribute.type {
        case .string:
            let op = random.pick(["==", "!=", "<", ">=", "hasPrefix", "contains", "hasSuffix"])
            let text = random.pick(["A", "a.example", "", "Bo", "\u{1F600}", "é", "b"])
            return "\(path) \(op) \(jsonString(text))" + (random.chance(0.2) ? " [cd]" : "")
        case .int, .double:
            let op = random.pick(["==", "!=", "<", "<=", ">", ">="])
            return "\(path) \(op) \(random.pick(["0", "1", "-1", "1000000", "9007199254740993"]))"
        case .bool: return "\(path) == \(random.pick(["true", "false", "nil"]))"
        default: return "\(path) \(random.pick([">", "<", "=="])) \"2025-03-01\""
        }
    }

    func jsonString(_ text: String) -> String {
        var writer = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": writer += "\\\""
            case "\\": writer += "\\\\"
            case _ where scalar.value < 0x20: writer += String(format: "\\u%04x", scalar.value)
            default: writer.unicodeScalars.append(scalar)
            }
        }
        return writer + "\""
    }
}
