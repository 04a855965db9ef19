import Foundation
import StrataConformance
import Testing

@testable import StrataLMDB

/// The byte order sets are sorted in before they reach LMDB (its default comparator is unsigned
/// `memcmp`, a prefix first) — the same order as comparing byte by byte.
@Suite("LMDB: key order")
struct LMDBKeyOrderTests {
    @Test func precedesIsByteByByteOrder() {
        let seed: UInt64 = 0x4B45_59
        print("LMDBKeyOrderTests seed \(seed)")
        var random = SeededRandom(seed: seed)
        func key() -> [UInt8] {
            // Short keys over a small alphabet, so equal prefixes and equal keys are common.
            (0..<random.below(6)).map { _ in [0, 1, 0x7F, 0x80, 0xFF][random.below(5)] }
        }
        for trial in 0..<5_000 {
            let (a, b) = (key(), key())
            #expect(
                LMDBKeys.precedes(a, b) == a.lexicographicallyPrecedes(b), "seed \(seed), trial \(trial): \(a) vs \(b)")
        }
        #expect(LMDBKeys.precedes([], [0]))
        #expect(!LMDBKeys.precedes([0], []))
        #expect(LMDBKeys.precedes([0x7F], [0x80]))
        #expect(!LMDBKeys.precedes([1, 2], [1, 2]))
    }
}
