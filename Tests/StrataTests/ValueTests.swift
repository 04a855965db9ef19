import Foundation
import Strata
import Testing

@Suite struct ValueTests {
    @Test func nullsSortFirstAndKindsOrderStably() {
        let values: [Value] = [
            .string("b"), .int(3), .null, .double(2.5), .bool(true), .string("B"),
            .date(Date(timeIntervalSince1970: 0)),
        ]
        let sorted = values.sorted { Value.sortOrder($0, $1) == .ascending }
        #expect(
            sorted == [
                .null, .bool(true), .double(2.5), .int(3), .string("B"), .string("b"),
                .date(Date(timeIntervalSince1970: 0)),
            ])
    }

    @Test func numbersCompareAcrossIntAndDouble() {
        #expect(Value.predicateEquals(.int(2), .double(2)))
        #expect(Value.compare(.int(2), .double(2.5)) == .ascending)
        #expect(!Value.predicateEquals(.int(Int64.max), .int(Int64.max - 1)), "large integers are compared exactly")
    }

    @Test func comparisonFollowsTheNullContract() {
        #expect(!PredicateEvaluator.compare(.null, .equal, .int(1)))
        #expect(PredicateEvaluator.compare(.null, .notEqual, .int(1)))
        #expect(!PredicateEvaluator.compare(.null, .less, .int(1)))
        #expect(PredicateEvaluator.compare(.null, .equal, .null))
        #expect(
            PredicateEvaluator.compare(
                .string("ÉCOLE"), .equal, .string("ecole"), [.caseInsensitive, .diacriticInsensitive]))
        #expect(!PredicateEvaluator.compare(.string("ÉCOLE"), .equal, .string("ecole"), [.caseInsensitive]))
    }

    @Test func recordIDsOrderWithinTheirKind() {
        #expect(RecordID.int(2) < RecordID.int(10))
        #expect(RecordID.string("a") < RecordID.string("b"))
        let low = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        let high = UUID(uuidString: "F0000000-0000-0000-0000-000000000000")!
        #expect(RecordID.uuid(low) < RecordID.uuid(high))
    }

    @Test func errorsDescribeWhereTheyHappened() {
        let error = StrataError(.validationFailed, entity: "Person", recordID: .int(7), property: "age", "too old")
        #expect(error.description == "[validationFailed] Person(7).age: too old")
    }

    @Test func storeLocationsParse() throws {
        #expect(try StoreLocation("memory:").scheme == "memory")
        #expect(try StoreLocation("SQLITE:./a:b.sqlite").path == "./a:b.sqlite")
        #expect(throws: StrataError.self) { try StoreLocation("no-scheme") }
    }

    @Test func valuesRoundTripThroughJSONIncludingInfinities() throws {
        let values: [Value] = [
            .null, .bool(true), .int(.min), .double(-0.5), .double(.infinity), .double(-.infinity),
            .double(.leastNonzeroMagnitude * 2_024),
            .string("É"), .date(Date(timeIntervalSinceReferenceDate: 1.0 / 3.0)), .uuid(UUID()), .data(Data([0, 255])),
        ]
        let decoded = try JSONDecoder().decode([Value].self, from: try JSONEncoder().encode(values))
        #expect(decoded == values)
        let text = String(decoding: try JSONEncoder().encode([Value.double(.infinity), .double(2)]), as: UTF8.self)
        #expect(text == #"[{"double":{"_0":"+Infinity"}},{"double":{"_0":2}}]"#)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Value.self, from: Data(#"{"double":{"_0":"NaN"}}"#.utf8))
        }
    }

    @Test func textIsNormalisedToNFCOnTheWayIn() {
        #expect(
            ValueRules.nfc("E\u{0301}cole").unicodeScalars.map(\.value)
                == ValueRules.nfc("\u{00C9}cole").unicodeScalars.map(\.value))
        #expect(Value("E\u{0301}") == .string("\u{00C9}"))
        #expect("abc".attributeValue == .string("abc"))
        #expect(Value.sortOrder(.string("Z"), .string("É")) == .ascending, "scalar order: U+005A before U+00C9")
        #expect(Value.sortOrder(.string("\u{00C9}"), .string("F")) == .descending)
        #expect(ValueRules.violation(of: .double(.nan)) != nil)
        #expect(ValueRules.violation(of: .double(-.infinity)) == nil)
    }
}
