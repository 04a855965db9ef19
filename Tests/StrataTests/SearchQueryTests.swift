import Foundation
import Strata
import StrataConformance
import Testing

/// The search-box syntax and the tokenizer, as pure functions: what each form parses to, that a
/// query's description parses back to it, and how text is cut into words.
@Suite struct SearchQueryTests {
    @Test(arguments: [
        ("swift server", SearchQuery.all([.word("swift"), .word("server")])),
        ("swift AND server", .all([.word("swift"), .word("server")])),
        ("swift OR rust server", .any([.word("swift"), .all([.word("rust"), .word("server")])])),
        ("swift -rust", .all([.word("swift"), .not(.word("rust"))])),
        ("swift NOT rust", .all([.word("swift"), .not(.word("rust"))])),
        ("\"server side\" serv*", .all([.phrase("server side"), .prefix("serv")])),
        ("\"swift ser\"*", .prefix("swift ser")),
        ("(swift OR rust) e-mail", .all([.any([.word("swift"), .word("rust")]), .word("e-mail")])),
        ("or and not", .all([.word("or"), .word("and"), .word("not")])),
        ("", .all([])),
    ])
    func parses(_ text: String, _ expected: SearchQuery) throws {
        #expect(try SearchQuery(parsing: text) == expected)
    }

    @Test(arguments: ["\"open", "(swift", "swift)", "swift OR", "AND swift", "-"])
    func malformedTextIsAnInvalidQuery(_ text: String) {
        #expect(throws: StrataError.self) { try SearchQuery(parsing: text) }
        do {
            _ = try SearchQuery(parsing: text)
        } catch let error as StrataError {
            #expect(error.code == .invalidQuery, "\(text): \(error)")
        } catch {
            Issue.record("\(text): \(error)")
        }
    }

    @Test func aDescriptionParsesBackToItsQuery() throws {
        let seed = UInt64(20_261_127)
        var random = SeededRandom(seed: seed)
        let words = ["swift", "OR", "e-mail", "東京", "a b", "x\"y", "serv"]
        func make(_ depth: Int) -> SearchQuery {
            let word = words[random.int(0...(words.count - 1))]
            switch depth == 0 ? random.int(0...2) : random.int(0...5) {
            case 0: return .word(word)
            case 1: return .prefix(word)
            case 2: return .phrase(word)
            case 3: return .all((0..<random.int(2...3)).map { _ in make(depth - 1) })
            case 4: return .any((0..<random.int(2...3)).map { _ in make(depth - 1) })
            default: return .all([make(depth - 1), .not(make(depth - 1))])
            }
        }
        for round in 0..<200 {
            let query = make(3)
            let text = query.description
            let reparsed = try SearchQuery(parsing: text)
            // Quotes inside a word become spaces (a phrase of its words), the same search.
            #expect(
                reparsed.description == text, "seed \(seed), round \(round): \(text) → \(reparsed.description)")
        }
    }

    @Test func textIsCutIntoFoldedWordsWithPositions() {
        let tokens = SearchTokenizer.tokens("Crème-Brûlée, 3.14 ÅSA!")
        #expect(tokens.map(\.text) == ["creme", "brulee", "3", "14", "asa"])
        #expect(tokens.map(\.position) == [0, 1, 2, 3, 4])
        let long = String(repeating: "a", count: 100)
        #expect(SearchTokenizer.tokens(long).map(\.text.count) == [SearchTokenizer.maximumWordLength])
    }

    @Test func textWithoutSpacesIsCutIntoPairs() {
        #expect(SearchTokenizer.tokens("東京都 に").map(\.text) == ["東京", "京都", "都", "に"])
        #expect(SearchTokenizer.tokens("swift在北京").map(\.text) == ["swift", "在北", "北京", "京"])
        let query = SearchTokenizer.queryTokens("東京都 京")
        #expect(query.map(\.text) == ["東京", "京都", "京"])
        #expect(query.map(\.isPrefix) == [false, false, true])
    }

    @Test func theASCIIPathCutsAsFoundationsFoldingDoes() {
        let seed = UInt64(20_261_128)
        var random = SeededRandom(seed: seed)
        let alphabet = Array("aZq09 -_.,!?'\"\t\nMxY")
        for round in 0..<500 {
            let text = String((0..<random.int(0...40)).map { _ in alphabet[random.int(0...(alphabet.count - 1))] })
            #expect(
                SearchTokenizer.tokens(text) == SearchTokenizer.generalTokens(text),
                "seed \(seed), round \(round): \(text.debugDescription)")
            #expect(
                SearchTokenizer.words(text) == SearchTokenizer.generalTokens(text).map(\.text),
                "seed \(seed), round \(round): \(text.debugDescription)")
        }
        let long = String(repeating: "Ab", count: 50)
        #expect(SearchTokenizer.tokens(long) == SearchTokenizer.generalTokens(long))
        #expect(SearchTokenizer.words(long) == SearchTokenizer.generalTokens(long).map(\.text))
        #expect(SearchTokenizer.words("Crème brûlée") == ["creme", "brulee"], "other text takes the general path")
    }
}
