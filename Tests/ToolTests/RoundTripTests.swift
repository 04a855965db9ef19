import Foundation
import Strata
import StrataTools
import Testing

/// A store of N records (every value type — exact decimals, collections and documents among them —,
/// references, ordered link lists, many-to-many links,
/// several versions) imported into SQLite, then copied SQLite → LMDB → JSON file → SQLite by the
/// built tool; the last store's digest equals the first's. N is 20,000 in `make test`
/// (STRATA_ROUNDTRIP_RECORDS sets it; `make roundtrip` runs 1,000,000 through a release build of
/// the tool, STRATA_TOOL).
@Suite("strata round trip")
struct RoundTripTests {
    /// Owner ->> Item (ordered, the inverse a to-one), Item <<->> Label (many-to-many).
    static func schema() throws -> Schema {
        try Schema(entities: [
            EntityDescription(
                name: "Owner", idKind: .uuid,
                attributes: [
                    AttributeDescription(name: "name", type: .string, isIndexed: true),
                    AttributeDescription(name: "joined", type: .date),
                    AttributeDescription(name: "active", type: .bool),
                ],
                relationships: [
                    RelationshipDescription(
                        name: "items", destination: "Item", inverse: "owner", cardinality: .toMany, isOrdered: true,
                        deleteRule: .cascade)
                ]),
            EntityDescription(
                name: "Item", idKind: .int,
                attributes: [
                    AttributeDescription(name: "title", type: .string),
                    AttributeDescription(name: "price", type: .double),
                    AttributeDescription(name: "count", type: .int, isIndexed: true),
                    AttributeDescription(name: "tag", type: .uuid, isOptional: true),
                    AttributeDescription(name: "blob", type: .data, isOptional: true),
                    AttributeDescription(name: "amount", type: .decimal, isOptional: true, isIndexed: true),
                    AttributeDescription(
                        name: "keywords", type: .array, isOptional: true, isIndexed: true, element: .string),
                    AttributeDescription(name: "sizes", type: .set, isOptional: true, element: .double),
                    AttributeDescription(name: "extras", type: .dictionary, isOptional: true, element: .int),
                    AttributeDescription(name: "meta", type: .document, isOptional: true),
                ],
                relationships: [
                    RelationshipDescription(name: "owner", destination: "Owner", inverse: "items", cardinality: .toOne),
                    RelationshipDescription(
                        name: "labels", destination: "Label", inverse: "items", cardinality: .toMany),
                ]),
            EntityDescription(
                name: "Label", idKind: .string, attributes: [AttributeDescription(name: "text", type: .string)],
                relationships: [
                    RelationshipDescription(name: "items", destination: "Item", inverse: "labels", cardinality: .toMany)
                ]),
        ])
    }

    /// Writes the export of `count` records, deterministically from `seed`, as `strata export` would.
    static func writeExport(count: Int, seed: UInt64, to path: String) throws {
        let schema = try schema()
        guard let owner = schema.entity("Owner"), let item = schema.entity("Item"), let label = schema.entity("Label")
        else { return }
        let owners = max(1, count / 20)
        let labels = max(1, count / 100)
        let items = count - owners - labels
        var random = seed
        func next() -> UInt64 {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return random >> 11
        }
        func uuid(_ n: Int, _ salt: UInt8) -> UUID {
            var bytes = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: UInt64(n).bigEndian) { for (i, b) in $0.enumerated() { bytes[8 + i] = b } }
            bytes[0] = salt
            bytes[6] = 0x40
            bytes[8] = bytes[8] & 0x3F | 0x80
            return UUID(
                uuid: (
                    bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                    bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
                ))
        }
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var text = ""
        func flush(_ force: Bool = false) throws {
            if force || text.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let description = String(decoding: try encoder.encode(SchemaDescription(schema)), as: UTF8.self)
        text +=
            #"{"entities":["Owner","Item","Label"],"format":1,"records":\#(count),"#
            + #""schema":\#(description),"strata":"export"}"# + "\n"
        // Items of owner o: every item i with i % owners == o, in a shuffled but fixed order.
        var itemsOf = [[RecordID]](repeating: [], count: owners)
        for i in 0..<items { itemsOf[i % owners].append(.int(Int64(i + 1))) }
        for o in 0..<owners {
            var list = itemsOf[o]
            if list.count > 1 {
                for k in stride(from: list.count - 1, to: 0, by: -1) { list.swapAt(k, Int(next() % UInt64(k + 1))) }
            }
            let record = Record(
                entity: "Owner", id: .uuid(uuid(o, 1)), version: 1 + Int64(next() % 5),
                values: [
                    "name": .string("owner \(o) \u{00E9}\u{1F30D}"),
                    "joined": .date(Date(timeIntervalSinceReferenceDate: Double(next() % 1_000_000_000) / 7)),
                    "active": .bool(next() % 2 == 0),
                ])
            text += RecordJSON.line(record, links: ["items": list], entity: owner) + "\n"
            try flush()
        }
        // Exact decimals of every shape: cents, 38 significant digits, tiny and huge exponents.
        func decimal() -> Value {
            let sign = next() % 2 == 0 ? "" : "-"
            let text: String
            switch next() % 5 {
            case 0: return .null
            case 1: text = "\(next() % 1_000_000).\(next() % 100)"
            case 2: text = String(String(next()) + String(next()) + String(next())).prefix(38) + "e-\(next() % 60)"
            case 3: text = "\(next() % 1_000)e\(next() % 90)"
            default: text = "0.\(next() % 10_000_000)"
            }
            return Decimal(string: sign + text, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) } ?? .null
        }
        for i in 0..<items {
            let labelIDs = (0..<Int(next() % 3)).map { _ in RecordID.string("label-\(next() % UInt64(labels))") }
            let record = Record(
                entity: "Item", id: .int(Int64(i + 1)), version: 1 + Int64(next() % 3),
                values: [
                    "title": .string("item \(i)\t\"quoted\""), "price": .double(Double(next() % 100_000) / 100 - 10),
                    "count": .int(Int64(next() % 1_000) - 500), "tag": next() % 3 == 0 ? .null : .uuid(uuid(i, 2)),
                    "blob": i % 7 == 0
                        ? .data(Data((0..<Int(next() % 40)).map { _ in UInt8(truncatingIfNeeded: next()) })) : .null,
                    "owner": .uuid(uuid(i % owners, 1)), "amount": decimal(),
                    "keywords": i % 5 == 0
                        ? .null : .array((0..<Int(next() % 4)).map { _ in .string("k\(next() % 50)") }),
                    "sizes": i % 4 == 0
                        ? .null
                        : .array(
                            Set((0..<Int(next() % 3)).map { _ in Double(next() % 1_000) / 8 }).sorted().map(
                                Value.double)),
                    "extras": i % 3 == 0 ? .null : .dictionary(["n": .int(Int64(i)), "é": .int(Int64(next() % 9))]),
                    "meta": i % 6 == 0
                        ? .null
                        : .document(#"{"n":\#(i),"s":"item \#(i)","t":[true,null,\#(Double(next() % 99) / 4)]}"#),
                ])
            text +=
                RecordJSON.line(
                    record, links: ["labels": Array(Set(labelIDs)).sorted { $0.description < $1.description }],
                    entity: item) + "\n"
            try flush()
        }
        for l in 0..<labels {
            let record = Record(
                entity: "Label", id: .string("label-\(l)"), version: 1, values: ["text": .string("L\(l)")])
            text += RecordJSON.line(record, links: [:], entity: label) + "\n"
            try flush()
        }
        text += #"{"strata":"end","records":\#(count)}"# + "\n"
        try flush(true)
    }

    struct Inspected: Decodable {
        var digest: StoreDigest
    }

    @Test func aStoreGoesSQLiteToLMDBToJSONToSQLiteAndComesBackEqual() async throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["STRATA_ROUNDTRIP_RECORDS"].flatMap(Int.init) ?? 5_000
        let seed = environment["STRATA_ROUNDTRIP_SEED"].flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        let tool = environment["STRATA_TOOL"] ?? Tool.executable
        let directory = try ToolTests().directory
        print("round trip of \(count) records, seed \(seed), tool \(tool)")
        let file = "\(directory)/generated.ndjson"
        try Self.writeExport(count: count, seed: seed, to: file)
        let hops = [
            "sqlite:\(directory)/a.sqlite", "lmdb:\(directory)/b.lmdb", "json:\(directory)/c.json",
            "sqlite:\(directory)/d.sqlite",
        ]
        let imported = try await Tool.run(["import", hops[0], "--input", file], in: directory, executable: tool)
        #expect(imported.status == 0, "seed \(seed): \(imported.errors)")
        for (from, to) in zip(hops, hops.dropFirst()) {
            let begin = ContinuousClock.now
            let copied = try await Tool.run(["copy", from, to], in: directory, executable: tool)
            #expect(copied.status == 0, "seed \(seed): \(from) → \(to): \(copied.output)\(copied.errors)")
            print(
                "\(from) → \(to): \(copied.output.trimmingCharacters(in: .newlines)) "
                    + "in \(ContinuousClock.now - begin)")
        }
        var digests: [StoreDigest] = []
        for url in [hops[0], hops[3]] {
            let inspected = try await Tool.run(["inspect", url, "--json", "--digest"], in: directory, executable: tool)
            #expect(inspected.status == 0, "\(inspected.errors)")
            digests.append(try JSONDecoder().decode(Inspected.self, from: Data(inspected.output.utf8)).digest)
        }
        #expect(
            digests[0] == digests[1],
            "seed \(seed): the last store equals the first:\n\(digests[0])\n---\n\(digests[1])")
        #expect(digests[0].entities.values.map(\.count).reduce(0, +) == count, "seed \(seed): \(digests[0])")
    }
}
