import Foundation
import Strata
import StrataConformance
import Testing

/// The JSON reader the JSON file backend and the NDJSON tools use: numbers exact, strings
/// unescaped, malformed text refused with where.
@Suite struct ExactJSONTests {
    @Test func doublesInSwiftsShortestFormComeBackBitForBit() throws {
        let seed = UInt64(Date().timeIntervalSince1970)
        var random = SeededRandom(seed: seed)
        for _ in 0..<20_000 {
            let number = Double(bitPattern: random.next())
            guard number.isFinite else { continue }
            let parsed = try #require(try ExactJSON.parse("[\(number)]") as? [Any])
            let back = try #require(parsed.first as? NSNumber).doubleValue
            #expect(back.bitPattern == number.bitPattern, "seed \(seed): \(number) read as \(back)")
        }
        #expect((try ExactJSON.parse("-0.13000000000000075") as? NSNumber)?.doubleValue == -0.13000000000000075)
    }

    @Test func integersStayExactToTheLimitsOfInt64() throws {
        for number in [Int64.max, Int64.min, 9_007_199_254_740_993, -1, 0] {
            #expect((try ExactJSON.parse(String(number)) as? NSNumber)?.int64Value == number)
        }
        #expect(
            (try ExactJSON.parse("18446744073709551616") as? NSNumber)?.doubleValue == 18_446_744_073_709_551_616.0,
            "beyond Int64: a double")
    }

    @Test func stringsObjectsAndLiteralsHaveJSONSerializationsShapes() throws {
        let text = #"{"a": [1, 2.5, "x\"\\\/\n\t\u00e9\ud83c\udf0d", true, false, null], "b": {}, "c": []}"#
        let object = try #require(try ExactJSON.parse(text) as? [String: Any])
        let list = try #require(object["a"] as? [Any])
        #expect((list[0] as? NSNumber)?.intValue == 1)
        #expect((list[1] as? NSNumber)?.doubleValue == 2.5)
        #expect(list[2] as? String == "x\"\\/\n\té🌍")
        #expect(list[3] as? Bool == true && list[4] as? Bool == false)
        #expect(list[5] is NSNull)
        #expect((object["b"] as? [String: Any])?.isEmpty == true && (object["c"] as? [Any])?.isEmpty == true)
    }

    @Test(arguments: [
        ("[1, 2", 5), ("{\"a\" 1}", 5), ("[01x]", 3), ("\"abc", 4), ("[\"\\ud800\"]", 8), ("[1] 2", 4), ("[tru]", 1),
        ("[\"a\u{01}\"]", 3), ("-", 1),
    ])
    func malformedTextIsRefusedWithWhere(_ text: String, _ offset: Int) throws {
        let error = try #require(throws: ExactJSON.SyntaxError.self) { try ExactJSON.parse(text) }
        #expect(error.offset == offset, "\(text): \(error)")
    }

    @Test func nestingIsBounded() throws {
        #expect(throws: ExactJSON.SyntaxError.self) { try ExactJSON.parse(String(repeating: "[", count: 10_000)) }
        #expect(try ExactJSON.parse(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)) is [Any])
    }
}
