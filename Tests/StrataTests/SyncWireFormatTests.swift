import Foundation
import StrataConformance
import StrataInMemory
import Testing

@testable import Strata
@testable import StrataSync
@testable import StrataSyncServer

/// Wire format 2 beside format 1: every value kind and every message survives both; the bytes
/// are the documented ones; damaged bodies are typed errors, never crashes; format 2 is compact.
@Suite("sync wire formats")
struct SyncWireFormatTests {
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["STRATA_SEED"].flatMap { UInt64($0) }
        ?? UInt64(Date().timeIntervalSince1970)

    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func text() -> String {
            let pieces = [
                "a", "é", "\"", "\\", "\n", "\u{0}", "\u{1F}", "😀", "中文", " ", "/", "\u{7F}", "+", "ß",
            ]
            return (0..<below(6)).map { _ in pieces[below(pieces.count)] }.joined()
        }
        mutating func scalar(_ kind: Int) -> Value {
            switch kind {
            case 0: return .bool(below(2) == 0)
            case 1: return .int([0, 1, -1, Int64.max, Int64.min, Int64(bitPattern: next())][below(6)])
            case 2:
                let special: [Double] = [
                    0, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1,
                ]
                return .double(below(2) == 0 ? special[below(special.count)] : Double(bitPattern: next() | 1 << 62) / 7)
            case 3: return .string(text())
            case 4:
                return .date(
                    Date(timeIntervalSinceReferenceDate: Double(Int64(bitPattern: next()) % 10_000_000_000) / 1_000))
            case 5: return .uuid(UUID())
            case 6: return .data(Data((0..<below(9)).map { _ in UInt8(truncatingIfNeeded: next()) }))
            default:
                let digits = String(next() % 1_000_000_000_000)
                return .decimal(Decimal(string: (below(2) == 0 ? "-" : "") + digits + "e" + String(below(40) - 20))!)
            }
        }
        mutating func value() -> Value {
            switch below(12) {
            case 0: return .null
            case 1:
                let kind = below(8)
                return .array((0..<below(4)).map { _ in scalar(kind) })
            case 2:
                let kind = below(8)
                return .dictionary(Dictionary((0..<below(4)).map { _ in (text(), scalar(kind)) }) { a, _ in a })
            case 3: return .document(#"{"a":[1,"\u00e9"],"b":null}"#)
            default: return scalar(below(8))
            }
        }
        mutating func id() -> RecordID {
            [RecordID.uuid(UUID()), .string(text()), .int(Int64(bitPattern: next()))][below(3)]
        }
        mutating func values() -> [String: Value] {
            Dictionary(uniqueKeysWithValues: (0..<below(6)).map { ("p\($0)", value()) })
        }
        mutating func time(_ node: String) -> HybridTimestamp {
            HybridTimestamp(
                millis: Int64(next() % 2_000_000_000_000), counter: UInt32(below(3)), node: below(3) == 0 ? "n" : node)
        }
        mutating func change() -> RemoteChange {
            let origin = below(4) == 0 ? nil : "client-\(below(3))"
            return RemoteChange(
                entity: ["Trip", "Stop", "Tag"][below(3)], recordID: id(), values: below(5) == 0 ? nil : values(),
                links: below(2) == 0 ? [:] : ["tags": (0..<below(3)).map { _ in id() }],
                serverVersion: Int64(below(100)), timestamp: time(origin ?? "server"), origin: origin)
        }
        mutating func mutation(_ client: String, _ sequence: UInt64) -> SyncMutation {
            let owner = below(10) == 0 ? "someone-else" : client
            let delta = LinkDelta(added: [id()], removed: below(2) == 0 ? [] : [id()], order: [id(), id()])
            return SyncMutation(
                id: MutationID(clientID: owner, sequence: sequence), kind: below(4) == 0 ? .delete : .put,
                entity: ["Trip", "Stop"][below(2)], recordID: id(), isInsert: below(2) == 0, values: values(),
                links: below(2) == 0 ? [:] : ["members": delta],
                baseServerVersion: below(2) == 0 ? nil : Int64(below(9)),
                timestamp: time(owner))
        }
    }

    @Test func everyMessageAndValueKindSurvivesBothFormats() throws {
        print("SyncWireFormatTests: seed \(Self.seed) (STRATA_SEED to replay)")
        var random = Random(state: Self.seed)
        for round in 0..<200 {
            let push = PushRequest(
                clientID: "client-\(round)",
                mutations: (0..<random.below(6)).map { random.mutation("client-\(round)", UInt64($0)) },
                schemaVersion: random.below(2) == 0 ? nil : "3")
            let results = push.mutations.map { mutation in
                MutationResult(
                    id: mutation.id, outcome: [.applied, .duplicate, .rejected][random.below(3)],
                    serverVersion: random.below(2) == 0 ? nil : 4, code: random.below(2) == 0 ? nil : "conflict",
                    reason: random.below(2) == 0 ? nil : random.text(),
                    current: random.below(2) == 0 ? nil : random.change())
            }
            let pull = PullResponse(
                changes: (0..<random.below(6)).map { _ in random.change() },
                cursor: random.below(3) == 0
                    ? nil : SyncCursor(Int64(random.below(1_000)), epoch: random.below(2) == 0 ? nil : "e"),
                hasMore: random.below(2) == 0)
            let snapshot = SnapshotResponse(
                entity: "Trip", records: (0..<random.below(4)).map { _ in random.change() }, through: random.id(),
                next: random.below(2) == 0
                    ? nil : SnapshotPosition(entity: "Stop", after: random.below(2) == 0 ? nil : random.id()),
                cursor: SyncCursor(9, epoch: "v"))
            for version in SyncWire.supportedVersions {
                let context = "seed \(Self.seed), round \(round), format \(version)"
                var request = push
                request.version = version
                #expect(
                    try SyncWire.decodePushRequest(try SyncWire.encode(request), version: version) == request,
                    "\(context)")
                var answer = PushResponse(results: results)
                answer.version = version
                #expect(
                    try SyncWire.decodePushResponse(try SyncWire.encode(answer, version: version), version: version)
                        == answer, "\(context)")
                var page = pull
                page.version = version
                #expect(
                    try SyncWire.decodePullResponse(try SyncWire.encode(page, version: version), version: version)
                        == page, "\(context)")
                var records = snapshot
                records.version = version
                #expect(
                    try SyncWire.decodeSnapshotResponse(
                        try SyncWire.encode(records, version: version), version: version) == records,
                    "\(context)")
            }
        }
    }
}

extension SyncWireFormatTests {
    static let exampleID = RecordID.uuid(UUID(uuidString: "6F1C2A4E-8B1D-4C55-9E5A-0D3B2C1A9F77")!)

    /// The pull answer the "Sync over HTTP" article shows.
    static var examplePull: PullResponse {
        PullResponse(
            changes: [
                RemoteChange(
                    entity: "Task", recordID: exampleID,
                    values: [
                        "title": .string("Buy milk"), "done": .bool(false),
                        "due": .date(Date(timeIntervalSinceReferenceDate: 786_000_000)),
                        "project": .string("home"),
                    ],
                    links: [:], serverVersion: 3,
                    timestamp: HybridTimestamp(
                        millis: 1_764_201_600_000, node: "c-3f2a9c1e-7b4d-4e8a-9c6f-2d1b5a7e0c93"),
                    origin: "c-3f2a9c1e-7b4d-4e8a-9c6f-2d1b5a7e0c93"),
                RemoteChange(
                    entity: "Task", recordID: .uuid(UUID(uuidString: "0B5E7D1C-3A2F-4E6B-8C9D-1F2A3B4C5D6E")!),
                    values: nil,
                    links: [:], serverVersion: 5,
                    timestamp: HybridTimestamp(millis: 1_764_201_660_000, counter: 1, node: "laptop"),
                    origin: "laptop"),
            ],
            cursor: SyncCursor(42, epoch: "7"), hasMore: false)
    }

    /// The article's example, byte for byte (a change here changes the documented format).
    static let examplePullText = #"""
        {"version":2,"shapes":[{"entity":"Task","properties":["done","due","project","title"],\#
        "types":["bool","date","string","string"]},{"entity":"Task","properties":[],"types":[]}],\#
        "changes":[[0,"u:6F1C2A4E-8B1D-4C55-9E5A-0D3B2C1A9F77",3,[1764201600000,0],\#
        "c-3f2a9c1e-7b4d-4e8a-9c6f-2d1b5a7e0c93",\#
        [false,786000000.0,"home","Buy milk"]],[1,"u:0B5E7D1C-3A2F-4E6B-8C9D-1F2A3B4C5D6E",5,\#
        [1764201660000,1],"laptop",null]],"cursor":42,"epoch":"7","hasMore":false}
        """#

    @Test func formatTwoIsTheDocumentedBytes() throws {
        let bytes = try SyncWire.encode(Self.examplePull, version: 2)
        #expect(String(decoding: bytes, as: UTF8.self) == Self.examplePullText)
        // Members in another order and white space between tokens read the same.
        let reordered = #"""
            { "hasMore" : false , "changes" : [ [ 1 , "u:0B5E7D1C-3A2F-4E6B-8C9D-1F2A3B4C5D6E" , 5 ,
              [ 1764201660000 , 1 ] , "laptop" , null ] ] , "epoch" : "7" , "cursor" : 42 , "version" : 2 ,
              "shapes" : [ { "types" : [ "bool" ] , "properties" : [ "done" ] , "entity" : "Task" } ,
              { "entity" : "Task" , "properties" : [ ] , "types" : [ ] } ] , "unknown" : {"kept": [1, "out"]} }
            """#
        // The article's block, as laid out there.
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(
                "Sources/StrataSyncServer/StrataSyncServer.docc/SyncOverHTTP.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        let block = try #require(
            text.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        var shown = try SyncWire.decodePullResponse(Array(block.utf8), version: 2)
        shown.version = Self.examplePull.version
        #expect(shown == Self.examplePull, "the article shows the example")
        #expect(block.filter { !$0.isWhitespace } == Self.examplePullText.filter { !$0.isWhitespace })
        let decoded = try SyncWire.decodePullResponse(Array(reordered.utf8), version: 2)
        var expected = Self.examplePull
        expected.changes.removeFirst()
        expected.version = 2
        #expect(decoded == expected)
    }

    /// An eviction is `false` in a format-2 row and read back as one; format 1 has no such row and
    /// carries it as a tombstone.
    @Test func anEvictionIsFalseInFormatTwoAndATombstoneInFormatOne() throws {
        let key = RecordKey(entity: "Task", id: .int(7))
        let eviction = RemoteChange.eviction(
            of: key, serverVersion: 3, timestamp: HybridTimestamp(millis: 5, node: "server"))
        var pull = PullResponse(changes: [eviction], cursor: SyncCursor(1, epoch: "e"), hasMore: false)
        let two = try SyncWire.encode(pull, version: 2)
        #expect(String(decoding: two, as: UTF8.self).contains(#",false]"#))
        let back = try SyncWire.decodePullResponse(two, version: 2)
        #expect(back.changes == [eviction] && back.changes[0].isEviction)
        pull.version = 1
        let one = try SyncWire.decodePullResponse(try SyncWire.encode(pull, version: 1), version: 1)
        #expect(one.changes.count == 1 && one.changes[0].isTombstone && !one.changes[0].isEviction)
        // `true` in the values' place is no row.
        let damaged = String(decoding: two, as: UTF8.self).replacingOccurrences(of: ",false]", with: ",true]")
        #expect(throws: SyncWire.Unreadable.self) { try SyncWire.decodePullResponse(Array(damaged.utf8), version: 2) }
    }

    @Test func damagedBodiesAreTypedErrorsNeverCrashes() throws {
        print("SyncWireFormatTests.damaged: seed \(Self.seed) (STRATA_SEED to replay)")
        var random = Random(state: Self.seed ^ 0xDA3A6E)
        let push = PushRequest(clientID: "c", mutations: (0..<6).map { random.mutation("c", UInt64($0)) })
        let bodies = [
            try SyncWire.encode(push), try SyncWire.encode(Self.examplePull, version: 2),
            try SyncWire.encode(
                PushResponse(results: [
                    MutationResult(id: push.mutations[0].id, outcome: .rejected, current: random.change())
                ]), version: 2),
        ]
        var refused = 0
        for round in 0..<3_000 {
            var body = bodies[round % bodies.count]
            for _ in 0...random.below(3) {
                let at = random.below(body.count)
                switch random.below(4) {
                case 0: body.removeSubrange(at...)
                case 1: body[at] = UInt8(truncatingIfNeeded: random.next())
                case 2:
                    body.insert(
                        [UInt8(ascii: "["), UInt8(ascii: "\""), 0xFF, UInt8(ascii: "9")][random.below(4)], at: at)
                default: body.remove(at: at)
                }
                if body.isEmpty { body = [UInt8(ascii: "{")] }
            }
            do {
                switch round % bodies.count {
                case 0: _ = try SyncWire.decodePushRequest(body, version: 2)
                case 1: _ = try SyncWire.decodePullResponse(body, version: 2)
                default: _ = try SyncWire.decodePushResponse(body, version: 2)
                }
            } catch is SyncWire.Unreadable {
                refused += 1
            }
        }
        #expect(refused > 2_000, "most damage is noticed (seed \(Self.seed)): \(refused) of 3000")
        // Nested past any depth a message has: refused, not a stack overflow.
        let deep = Array(#"{"version":2,"x":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: SyncWire.Unreadable.self) { try SyncWire.decodePullResponse(deep, version: 2) }
    }

    @Test func aDamagedPushIs400AndWritesNothing() async throws {
        let store = Store(backend: InMemoryBackend(schema: try TravelDomain.schema()))
        let endpoint = SyncEndpoint(
            server: SyncServer(store: store), authenticator: StaticTokenAuthenticator(["t": SyncIdentity("a")]))
        for body in [
            #"{"version":2,"clientID":"a","shapes":[],"mutations":[[0,1,"put","u:x",true,null,[1,0],[]]]}"#,
            #"{"version":2,"clientID":"a","shapes":[{"entity":"Trip","properties":["name"],"types":["text"]}],"#
                + #""mutations":[]}"#,
            #"{"version":2,"clientID":"a","mutations":[[0"#, #"{"version":2,"clientID":"a","mutations":"#,
        ] {
            let answer = await endpoint.handle(
                SyncWire.Request(
                    method: "POST", path: SyncWire.pushPath, headers: ["authorization": "Bearer t"],
                    body: Array(body.utf8)))
            #expect(answer.status == 400, "\(body)")
        }
        #expect(try await store.history().isEmpty)
    }

    @Test func formatTwoIsUnderTwoFifthsOfFormatOne() throws {
        // Ten attributes of the kinds a service stores, as the benchmark's items have.
        let changes = (0..<500).map { n -> RemoteChange in
            var values: [String: Value] = ["name": .string("item \(n)"), "category": .int(Int64(n % 100))]
            values["score"] = .double(Double(n * 7) / 10)
            values["createdAt"] = .date(Date(timeIntervalSince1970: 1_700_000_000 + Double(n)))
            values["isActive"] = .bool(n % 3 == 0)
            values["note"] = n % 5 == 0 ? .null : .string("note \(n)")
            values["quantity"] = .int(Int64(n % 1_000))
            values["ratio"] = .double(Double(n) / 3)
            values["code"] = .string("C\(n)")
            values["region"] = .string("north")
            let time = HybridTimestamp(millis: 1_764_201_600_000 + Int64(n), node: "bench-client")
            return RemoteChange(
                entity: "BenchItem", recordID: .uuid(UUID()), values: values, links: [:], serverVersion: 1,
                timestamp: time, origin: "bench-client")
        }
        let page = PullResponse(changes: changes, cursor: SyncCursor(500, epoch: "e"), hasMore: true)
        let one = try SyncWire.encode(page, version: 1).count
        let two = try SyncWire.encode(page, version: 2).count
        #expect(Double(two) <= 0.4 * Double(one), "format 2 \(two) bytes, format 1 \(one)")
    }
}

extension SyncWireFormatTests {
    @Test func uuidTextIsFoundationsAndReadsEitherCase() {
        for _ in 0..<1_000 {
            let uuid = UUID()
            #expect(WireUUID.text(uuid) == uuid.uuidString)
            #expect(WireUUID.parse(uuid.uuidString) == uuid)
            #expect(WireUUID.parse(uuid.uuidString.lowercased()) == uuid)
        }
        for bad in [
            "", "6F1C2A4E-8B1D-4C55-9E5A-0D3B2C1A9F7", "6F1C2A4E-8B1D-4C55-9E5A-0D3B2C1A9F7G",
            "6F1C2A4E+8B1D-4C55-9E5A-0D3B2C1A9F77",
            "6F1C2A4E-8B1D-4C55-9E5A-0D3B2C1A9F77 ", "é6F1C2A4E-8B1D-4C55-9E5A-0D3B2C1A9F",
        ] {
            #expect(WireUUID.parse(bad) == nil, "\(bad)")
        }
    }
}
