import Foundation
import Testing

/// What the README and the DocC catalogs point at exists, wherever that can be checked by
/// reading them: every `<doc:Article#section>` names an article of its catalog (and a heading in
/// it); every italic reference names an article or a section heading (in the catalog it names,
/// for "*X* in `Module`'s catalog"); every repository path in backticks and every relative link
/// exists; and a sentence pointing at figures or a table below or above has one there.
@Suite struct DocumentReferenceTests {
    /// One markdown file: its repository path, its lines outside code blocks, its headings.
    struct Document {
        var path: String
        var lines: [(number: Int, text: String)]
        var headings: [String]
        /// The catalog holding it (`Strata` for `Sources/Strata/Strata.docc/…`), or nil.
        var catalog: String? {
            path.split(separator: "/").first { $0.hasSuffix(".docc") }.map { String($0.dropLast(5)) }
        }
    }

    static func documents() throws -> [Document] {
        let paths = ["README.md", "CONTRIBUTING.md"] + (try ReadmeSampleTests.catalogArticles())
        return try paths.map { path in
            let text = try String(
                contentsOf: ReadmeSampleTests.root.appendingPathComponent(path), encoding: .utf8)
            var lines: [(Int, String)] = []
            var headings: [String] = []
            var fenced = false
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.hasPrefix("```") {
                    fenced.toggle()
                    continue
                }
                guard !fenced else { continue }
                lines.append((index + 1, String(line)))
                if line.hasPrefix("#") {
                    let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
                    headings.append(title.trimmingCharacters(in: CharacterSet(charactersIn: "`")))
                }
            }
            return Document(path: path, lines: lines, headings: headings)
        }
    }

    /// DocC's anchor for a heading: lowercased words joined by hyphens.
    static func anchor(_ heading: String) -> String {
        heading.lowercased().split { !$0.isLetter && !$0.isNumber }.joined(separator: "-")
    }

    static func matches(_ pattern: String, in line: String) throws -> [[String]] {
        let expression = try NSRegularExpression(pattern: pattern)
        let range = NSRange(line.startIndex..., in: line)
        return expression.matches(in: line, range: range).map { match in
            (0..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: line).map { String(line[$0]) } ?? ""
            }
        }
    }

    @Test func docLinksNameAnArticleOfTheirCatalogAndAHeadingInIt() throws {
        let documents = try Self.documents()
        var checked = 0
        for document in documents {
            guard let catalog = document.catalog else { continue }
            for (number, line) in document.lines {
                for match in try Self.matches(#"<doc:([A-Za-z0-9_-]+)(?:#([A-Za-z0-9_-]+))?>"#, in: line) {
                    checked += 1
                    let target = documents.first {
                        $0.catalog == catalog && $0.path.hasSuffix("/\(match[1]).md")
                    }
                    #expect(
                        target != nil, "\(document.path):\(number): <doc:\(match[1])> is not in \(catalog)'s catalog")
                    if let target, !match[2].isEmpty {
                        #expect(
                            target.headings.map(Self.anchor).contains(match[2].lowercased()),
                            "\(document.path):\(number): \(target.path) has no heading #\(match[2])")
                    }
                }
            }
        }
        #expect(checked >= 20, "\(checked) doc links checked")
    }

    @Test func italicReferencesNameAnArticleOrASection() throws {
        let documents = try Self.documents()
        let everywhere = Set(documents.flatMap(\.headings))
        var checked = 0
        for document in documents {
            for (number, line) in document.lines where !line.hasPrefix("    ") {
                // A capitalised phrase in *italics*, not a label ("*Damage*:", "*Design note:*").
                for match in try Self.matches(#"(?<![*\w])\*([A-Z][^*]{0,60}?)\*(?![*\w:])"#, in: line)
                where !match[1].hasSuffix(":") {
                    checked += 1
                    #expect(
                        everywhere.contains(match[1]),
                        "\(document.path):\(number): *\(match[1])* is no article or section of any catalog")
                }
                for match in try Self.matches(#"\*([^*]+)\* in `([A-Za-z]+)`'s catalog"#, in: line) {
                    let catalog = documents.filter { $0.catalog == match[2] }
                    #expect(!catalog.isEmpty, "\(document.path):\(number): there is no catalog \(match[2])")
                    #expect(
                        catalog.contains { $0.headings.contains(match[1]) },
                        "\(document.path):\(number): \(match[2])'s catalog has no *\(match[1])*")
                }
            }
        }
        #expect(checked >= 20, "\(checked) italic references checked")
    }

    @Test func repositoryPathsAndRelativeLinksExist() throws {
        var checked = 0
        for document in try Self.documents() {
            for (number, line) in document.lines {
                let paths = try Self.matches(
                    #"`((?:Sources|Backends|Tests|Benchmarks|Examples|openapi|scripts|\.ci)/[^`\s]*)`"#, in: line
                ).map { $0[1] }.filter { !$0.contains("*") && !$0.contains("MODULE") && !$0.contains("NAME") }
                let links = try Self.matches(#"\]\(([^)#:\s]+)(?:#[^)]*)?\)"#, in: line).map { $0[1] }
                for path in paths + links where document.catalog == nil || paths.contains(path) {
                    checked += 1
                    let exists = FileManager.default.fileExists(
                        atPath: ReadmeSampleTests.root.appendingPathComponent(path).path)
                    #expect(exists, "\(document.path):\(number): `\(path)` does not exist in the repository")
                }
            }
        }
        #expect(checked >= 5, "\(checked) paths checked")
    }

    @Test func figuresOrTablesBelowOrAboveAreThere() throws {
        for document in try Self.documents() {
            let tables = document.lines.filter { $0.text.hasPrefix("|") }.map(\.number)
            for (number, line) in document.lines {
                for match in try Self.matches(
                    #"\b(?:figures?|tables?|numbers)\s+(below|above)\b"#, in: line.lowercased())
                {
                    let found = match[1] == "below" ? tables.contains { $0 > number } : tables.contains { $0 < number }
                    #expect(found, "\(document.path):\(number): no table \(match[1]) for “\(line)”")
                }
            }
        }
    }
}
