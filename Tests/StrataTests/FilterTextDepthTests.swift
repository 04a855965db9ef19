import Foundation
import Strata
import StrataConformance
import StrataInMemory
import Testing

/// A filter from outside nests at most `FilterText.maximumDepth` levels: deeper is refused while
/// parsing (`invalidQuery` naming the limit), and whatever is accepted evaluates, natively and by
/// the engine, without exhausting a stack. Seeded (`STRATA_FILTER_SEED`), printing its seed; a
/// failure is shrunk to its shallowest failing text.
@Suite struct FilterTextDepthTests {
    let schema: Schema
    init() throws { schema = try TravelDomain.schema() }

    /// A filter over Person of `nots` `!`, `parens` parentheses and `hops` to-one round trips
    /// (`passport.owner.`), around one comparison; and its depth.
    static func text(nots: Int, parens: Int, hops: Int, random: inout SeededRandom) -> (String, Int) {
        var prefix = ""
        var closing = 0
        for _ in 0..<(nots + parens) {
            if closing < parens && (prefix.filter { $0 == "!" }.count >= nots || random.chance(0.5)) {
                prefix += "("
                closing += 1
            } else {
                prefix += random.chance(0.3) ? "! " : "!"
            }
        }
        let path = String(repeating: "passport.owner.", count: hops) + "name"
        return (prefix + path + #" == "Ana""# + String(repeating: ")", count: closing), nots + parens + 2 * hops)
    }

    func outcome(_ text: String, depth: Int, on stores: [Store]) async -> String? {
        do {
            let expression = try FilterText.parse(text, entity: "Person", schema: schema)
            guard depth <= FilterText.maximumDepth else { return "accepted at depth \(depth)" }
            for store in stores {
                _ = try await store.read { try $0.fetch(FetchPlan(entity: "Person", predicate: expression)) }
            }
            return nil
        } catch let error as StrataError {
            if depth > FilterText.maximumDepth, error.code == .invalidQuery,
                error.message.contains("\(FilterText.maximumDepth) levels")
            {
                return nil
            }
            return "depth \(depth): \(error)"
        } catch {
            return "depth \(depth): untyped \(error)"
        }
    }

    @Test func deepFiltersAreRefusedWhileParsingAndShallowOnesEvaluate() async throws {
        let seed = ProcessInfo.processInfo.environment["STRATA_FILTER_SEED"].flatMap { UInt64($0) } ?? 0xF11_7E5
        print("FilterTextDepthTests seed \(seed) (STRATA_FILTER_SEED)")
        var random = SeededRandom(seed: seed)
        let native = Store(backend: InMemoryBackend(schema: schema))
        let engine = Store(backend: InMemoryBackend(schema: schema, capabilities: .none))
        _ = try await TravelData.seed(native)
        _ = try await TravelData.seed(engine)
        let limit = FilterText.maximumDepth
        // The limit's edges and what crashed a server (2,400 and 3,000 `!`), then random shapes.
        var cases: [(Int, Int, Int)] = [(limit, 0, 0), (limit + 1, 0, 0), (0, limit, 0), (0, limit + 1, 0)]
        cases += [(0, 0, limit / 2), (1, 0, limit / 2), (2_400, 0, 0), (3_000, 0, 0), (0, 1_500, 0), (0, 0, 270)]
        for _ in 0..<200 {
            cases.append((random.int(0...80), random.int(0...40), random.int(0...20)))
        }
        for (nots, parens, hops) in cases {
            let (text, depth) = Self.text(nots: nots, parens: parens, hops: hops, random: &random)
            guard let failure = await outcome(text, depth: depth, on: [native, engine]) else { continue }
            // Shrink: the shallowest failing shape of the same kind.
            var smallest = (text, failure)
            for scale in stride(from: 0.1, through: 0.9, by: 0.1) {
                let shrunk = Self.text(
                    nots: Int(Double(nots) * scale), parens: Int(Double(parens) * scale),
                    hops: Int(Double(hops) * scale),
                    random: &random)
                if let again = await outcome(shrunk.0, depth: shrunk.1, on: [native, engine]) {
                    smallest = (shrunk.0, again)
                    break
                }
            }
            Issue.record("seed \(seed): \(smallest.1)\n\(smallest.0.prefix(300))")
            break
        }
        try await native.close()
        try await engine.close()
    }
}
