/// What a full-text search asks for: words, word prefixes and phrases combined with and, or and
/// not. The text of each part is cut into words by ``SearchTokenizer`` when the search runs, so
/// it is folded exactly as the indexed text was.
///
/// Build one with the cases, or parse the syntax most search boxes accept with
/// ``init(parsing:)``:
///
/// | syntax | meaning |
/// |---|---|
/// | `swift server` | both words (`AND` may be written) |
/// | `swift OR rust` | either word |
/// | `swift -rust`, `swift NOT rust` | the first word without the second |
/// | `"server side"` | the words next to each other, in this order |
/// | `serv*` | a word starting with `serv` |
/// | `(swift OR rust) server` | grouping |
///
/// A part whose text holds no word (punctuation only) is left out; a search left with no word
/// matches nothing. `not` needs a positive part beside it: a search of only exclusions is
/// refused (``StrataError/Code/invalidQuery``), as a search box would have nothing to rank.
public indirect enum SearchQuery: Sendable, Hashable {
    /// The text's words: one word, or several as a phrase (`e-mail` is the phrase `e mail`).
    case word(String)
    /// A word starting with the text (its last word when the text holds several: `server si`
    /// is the phrase `server` then a word starting with `si`).
    case prefix(String)
    /// The text's words next to each other, in order, within one attribute.
    case phrase(String)
    /// Every part matches.
    case all([SearchQuery])
    /// Some part matches.
    case any([SearchQuery])
    /// The part does not match (only inside ``all(_:)`` beside a positive part).
    case not(SearchQuery)
}

extension SearchQuery: CustomStringConvertible {
    /// The query in the syntax ``init(parsing:)`` reads.
    public var description: String {
        switch self {
        case .word(let text): return Self.quotedIfNeeded(text)
        case .prefix(let text): return Self.quotedIfNeeded(text) + "*"
        case .phrase(let text): return "\"" + text.replacingQuotes() + "\""
        case .all(let parts): return parts.map { $0.grouped(inside: .all) }.joined(separator: " ")
        case .any(let parts): return parts.map { $0.grouped(inside: .any) }.joined(separator: " OR ")
        case .not(let inner): return "-" + inner.grouped(inside: .not)
        }
    }

    private enum Context { case all, any, not }

    private func grouped(inside context: Context) -> String {
        switch (self, context) {
        case (.all(let parts), .any) where parts.count > 1, (.any(let parts), _) where parts.count > 1,
            (.all(let parts), .not) where parts.count > 1:
            return "(" + description + ")"
        default:
            return description
        }
    }

    private static func quotedIfNeeded(_ text: String) -> String {
        let plain = !text.isEmpty && text.allSatisfy { !$0.isWhitespace && !"\"()*-".contains($0) }
        let keyword = ["AND", "OR", "NOT"].contains(text)
        return plain && !keyword ? text : "\"" + text.replacingQuotes() + "\""
    }
}

extension String {
    fileprivate func replacingQuotes() -> String { String(map { $0 == "\"" ? " " : $0 }) }
}
