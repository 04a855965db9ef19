import Foundation
import StrataStorage
import Testing

/// The decimal forms every backend relies on: a sortable key's byte order is the numeric order
/// (SQLite compares it as text, LMDB as bytes), keys read back to the same number, and damaged
/// keys are refused rather than read as some other number.
@Suite("decimal forms")
struct DecimalFormTests {
    static func decimal(_ text: String) -> Decimal { Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))! }

    @Test func sortableKeysOrderAsTheNumbersDoAndReadBack() {
        let seed = UInt64(Date().timeIntervalSince1970)
        print("DecimalFormTests: seed \(seed)")
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        var numbers = ["0", "1", "-1", "0.1", "0.12", "0.123", "-0.12", "-0.123", "10", "9.99", "1e-30", "-1e-30"]
            .map(Self.decimal)
        numbers.append(Self.decimal("99999999999999999999999999999999999999"))
        numbers.append(Self.decimal("-12345678901234567890123456789012345678e-60"))
        for _ in 0..<2_000 {
            let digits = String(next() % 100_000_000_000)
            let text = (next() % 2 == 0 ? "-" : "") + digits + "e" + String(Int(next() % 120) - 60)
            numbers.append(Self.decimal(text))
        }
        for number in numbers {
            #expect(DecimalForm.fromSortableKey(DecimalForm.sortableKey(number)) == number, "seed \(seed): \(number)")
            #expect(DecimalForm.parse(DecimalForm.text(number)) == number, "seed \(seed): \(number) as text")
        }
        let byKey = numbers.sorted {
            Array(DecimalForm.sortableKey($0).utf8).lexicographicallyPrecedes(
                Array(DecimalForm.sortableKey($1).utf8))
        }
        #expect(byKey == numbers.sorted(), "seed \(seed): byte order is numeric order")
    }

    @Test func thirtyEightDigitsAreKeptAndTrailingZerosAreNotDigits() {
        #expect(DecimalForm.parse("12345678901234567890123456789012345678") != nil)
        #expect(DecimalForm.parse("1000000000000000000000000000000000000000000") == Self.decimal("1e42"))
        #expect(DecimalForm.parse("0.000000000000000000000000000000000000000000001") == Self.decimal("1e-45"))
    }

    @Test func equalNumbersAreOneCanonicalValue() {
        let a = DecimalForm.canonical(Decimal(sign: .plus, exponent: -2, significand: 110))
        #expect(a == Self.decimal("1.1") && DecimalForm.text(a) == "1.1")
        #expect(DecimalForm.sortableKey(a) == DecimalForm.sortableKey(Self.decimal("1.10")))
        #expect(ValueRules.normalized(.decimal(Decimal(sign: .plus, exponent: -3, significand: 2500))) == .decimal(2.5))
        #expect(ValueRules.violation(of: .decimal(.nan)) != nil, "NaN has no place in the order")
    }

    @Test func damagedKeysAndTextAreRefused() {
        for key in ["", "3", "3500", "3501!", "3501120!x", "1498~", "1498912", "3501a!", "4501!", "3501010!"] {
            #expect(DecimalForm.fromSortableKey(key) == nil, "\(key)")
        }
        for text in [
            "", "abc", "1.2.3", "NaN", "1e", "--1", "1,5", "1e200", "1234567890123456789012345678901234567891",
        ] {
            #expect(DecimalForm.parse(text) == nil, "\(text)")
        }
    }
}
