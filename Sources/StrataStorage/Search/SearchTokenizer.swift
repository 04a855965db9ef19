/// How the engine cuts text into the words a full-text index holds and a search looks for: the same
/// function for a record's text and for a query's, on every backend.
///
/// 1. The text is folded as the engine folds for case- and diacritic-insensitive comparison
///    (``Derivation/fold(_:)``): `Crème Brûlée` and `creme brulee` give the same words.
/// 2. A word is a run of letters, marks and digits; everything else separates words (`e-mail` is
///    `e` and `mail`, `3.14` is `3` and `14`, `don't` is `don` and `t`).
/// 3. Scripts written without spaces (Han, Hiragana, Katakana, Hangul, Thai, Lao, Khmer, Myanmar)
///    are cut into overlapping pairs of characters: `東京都` is `東京`, `京都`, then the last
///    character alone, `都`, so a query of one character finds every text that has it (as a prefix
///    of the pairs) and a query of several finds them as a phrase of pairs.
/// 4. A word longer than ``maximumWordLength`` characters is cut to that length.
///
/// Positions count words from 0 within one text, so a phrase matches words at consecutive
/// positions of one attribute.
public enum SearchTokenizer {
    /// The longest word kept, in characters; longer words are cut.
    public static let maximumWordLength = 64

    /// The words of `text` in order, each with its position.
    public static func tokens(_ text: String) -> [SearchToken] {
        var text = text
        text.makeContiguousUTF8()
        if let words = text.utf8.withContiguousStorageIfAvailable({ asciiWords($0) }) ?? nil {
            return words.enumerated().map { SearchToken($1, position: $0) }
        }
        return generalTokens(text)
    }

    /// The words of `text` in order (a word's position is its index): ``tokens(_:)`` without the
    /// positions, as an index stores them.
    public static func words(_ text: String) -> [String] {
        var text = text
        text.makeContiguousUTF8()
        if let words = text.utf8.withContiguousStorageIfAvailable({ asciiWords($0) }) ?? nil { return words }
        return generalTokens(text).map(\.text)
    }

    /// The words of ASCII text, without Foundation's folding (for ASCII it is lower-casing) or
    /// grapheme breaking; nil for any other text.
    private static func asciiWords(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        var words: [String] = []
        var start = -1
        var index = 0
        var lower = false
        func end() {
            guard start >= 0 else { return }
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<min(index, start + maximumWordLength)])
            words.append(
                lower
                    ? String(decoding: slice.map { $0 | 0x20 }, as: UTF8.self) : String(decoding: slice, as: UTF8.self))
            start = -1
            lower = false
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case 0x80...: return nil
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if start < 0 { start = index }
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                if start < 0 { start = index }
                lower = true
            default:
                end()
            }
            index += 1
        }
        end()
        return words
    }

    /// ``tokens(_:)`` for any text, through Foundation's folding and grapheme clusters (the ASCII
    /// path must agree with it: a test compares them).
    package static func generalTokens(_ text: String) -> [SearchToken] {
        var tokens: [SearchToken] = []
        var word = ""
        var wordLength = 0
        var pending: Character?  // the previous character of an unspaced run
        func endWord() {
            if !word.isEmpty { tokens.append(SearchToken(word, position: tokens.count)) }
            word = ""
            wordLength = 0
        }
        func endRun() {
            if let last = pending { tokens.append(SearchToken(String(last), position: tokens.count)) }
            pending = nil
        }
        for character in fold(text) {
            guard let first = character.unicodeScalars.first, isWordCharacter(first) else {
                endWord()
                endRun()
                continue
            }
            if isUnspaced(first) {
                endWord()
                if let previous = pending {
                    tokens.append(SearchToken(String(previous) + String(character), position: tokens.count))
                }
                pending = character
                continue
            }
            endRun()
            if wordLength < maximumWordLength {
                word.append(character)
                wordLength += 1
            }
        }
        endWord()
        endRun()
        return tokens
    }

    /// The words of a query's text: like ``tokens(_:)``, except that a run of unspaced characters
    /// longer than one gives only its pairs (the text's last single character would not follow a
    /// pair at the next position), and a run of one character is marked as a prefix of the pairs.
    public static func queryTokens(_ text: String) -> [(text: String, isPrefix: Bool)] {
        var result: [(text: String, isPrefix: Bool)] = []
        let tokens = self.tokens(text)
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            guard isUnspacedWord(token.text) else {
                result.append((token.text, false))
                index += 1
                continue
            }
            // A run's pairs, then its last character alone.
            var end = index
            while end < tokens.count, tokens[end].text.count == 2, isUnspacedWord(tokens[end].text) { end += 1 }
            if end == index {
                result.append((token.text, true))
                index += 1
            } else {
                for pair in tokens[index..<end] { result.append((pair.text, false)) }
                index = end + 1
            }
        }
        return result
    }

    /// Text folded as the engine folds it, in NFC.
    static func fold(_ text: String) -> String {
        PredicateEvaluator.fold(text, [.caseInsensitive, .diacriticInsensitive])
    }

    static func isUnspacedWord(_ word: String) -> Bool {
        word.unicodeScalars.first.map(isUnspaced) ?? false
    }

    static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .decimalNumber, .letterNumber, .otherNumber, .nonspacingMark, .spacingMark, .enclosingMark:
            return true
        default:
            return false
        }
    }

    /// Whether the scalar belongs to a script written without spaces between words.
    static func isUnspaced(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0E00...0x0EFF,  // Thai, Lao
            0x1000...0x109F,  // Myanmar
            0x1100...0x11FF,  // Hangul Jamo
            0x1780...0x17FF,  // Khmer
            0x3040...0x30FF,  // Hiragana, Katakana
            0x3130...0x318F,  // Hangul compatibility Jamo
            0x31F0...0x31FF,  // Katakana phonetic extensions
            0x3400...0x4DBF,  // CJK extension A
            0x4E00...0x9FFF,  // CJK unified ideographs
            0xAC00...0xD7AF,  // Hangul syllables
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFF66...0xFF9F,  // half-width Katakana
            0x20000...0x3134F:  // CJK extensions B–G
            return true
        default:
            return false
        }
    }
}

/// One word of a text, as ``SearchTokenizer`` cut it.
public struct SearchToken: Sendable, Hashable {
    /// The folded word.
    public var text: String
    /// Its position among the text's words, from 0.
    public var position: Int

    /// A word at a position.
    public init(_ text: String, position: Int) {
        self.text = text
        self.position = position
    }
}
