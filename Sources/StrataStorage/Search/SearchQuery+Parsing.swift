extension SearchQuery {
    /// Reads the search-box syntax (see ``SearchQuery``). `OR` binds looser than the implicit
    /// `AND`; `AND`, `OR` and `NOT` are keywords only in capitals. Unbalanced quotes or
    /// parentheses, or an operator with nothing beside it, are ``StrataError/Code/invalidQuery``.
    public init(parsing text: String) throws {
        var parser = SearchQueryParser(text)
        self = try parser.parse()
    }
}

/// A recursive-descent reader of the search-box syntax.
struct SearchQueryParser {
    enum Token: Equatable {
        case word(String, prefix: Bool)
        case phrase(String, prefix: Bool)
        case and, or, not, open, close
    }

    private let source: String
    private var tokens: [Token] = []
    private var index = 0

    init(_ source: String) { self.source = source }

    mutating func parse() throws -> SearchQuery {
        tokens = try lex()
        if tokens.isEmpty { return .all([]) }
        let query = try parseOr()
        if index < tokens.count { throw fail("unexpected \(describe(tokens[index]))") }
        return query
    }

    private mutating func parseOr() throws -> SearchQuery {
        var parts = [try parseAnd()]
        while index < tokens.count, tokens[index] == .or {
            index += 1
            parts.append(try parseAnd())
        }
        return parts.count == 1 ? parts[0] : .any(parts)
    }

    private mutating func parseAnd() throws -> SearchQuery {
        var parts = [try parseUnary()]
        while index < tokens.count {
            switch tokens[index] {
            case .or, .close: return parts.count == 1 ? parts[0] : .all(parts)
            case .and:
                index += 1
                parts.append(try parseUnary())
            default: parts.append(try parseUnary())
            }
        }
        return parts.count == 1 ? parts[0] : .all(parts)
    }

    private mutating func parseUnary() throws -> SearchQuery {
        guard index < tokens.count else { throw fail("an operator has nothing after it") }
        let token = tokens[index]
        index += 1
        switch token {
        case .not: return .not(try parseUnary())
        case .open:
            let inner = try parseOr()
            guard index < tokens.count, tokens[index] == .close else { throw fail("a parenthesis is not closed") }
            index += 1
            return inner
        case .word(let text, let prefix): return prefix ? .prefix(text) : .word(text)
        case .phrase(let text, let prefix): return prefix ? .prefix(text) : .phrase(text)
        case .and, .or, .close: throw fail("unexpected \(describe(token))")
        }
    }

    private func lex() throws -> [Token] {
        var tokens: [Token] = []
        var rest = Substring(source)
        while let first = rest.first {
            if first.isWhitespace {
                rest.removeFirst()
            } else if first == "(" || first == ")" {
                tokens.append(first == "(" ? .open : .close)
                rest.removeFirst()
            } else if first == "-" {
                tokens.append(.not)
                rest.removeFirst()
            } else if first == "\"" {
                rest.removeFirst()
                guard let end = rest.firstIndex(of: "\"") else { throw fail("a quote is not closed") }
                let phrase = String(rest[..<end])
                rest = rest[rest.index(after: end)...]
                let prefix = rest.first == "*"
                if prefix { rest.removeFirst() }
                tokens.append(.phrase(phrase, prefix: prefix))
            } else {
                let end = rest.firstIndex { $0.isWhitespace || "()\"".contains($0) } ?? rest.endIndex
                var word = String(rest[..<end])
                rest = rest[end...]
                switch word {
                case "AND": tokens.append(.and)
                case "OR": tokens.append(.or)
                case "NOT": tokens.append(.not)
                default:
                    let prefix = word.hasSuffix("*")
                    while word.hasSuffix("*") { word.removeLast() }
                    tokens.append(.word(word, prefix: prefix))
                }
            }
        }
        return tokens
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .word(let text, _), .phrase(let text, _): return "'\(text)'"
        case .and: return "AND"
        case .or: return "OR"
        case .not: return "NOT"
        case .open: return "'('"
        case .close: return "')'"
        }
    }

    private func fail(_ message: String) -> StrataError {
        StrataError(.invalidQuery, "search \"\(source)\": \(message)")
    }
}
