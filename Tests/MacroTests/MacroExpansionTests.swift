import SwiftDiagnostics
import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing

@testable import StrataMacrosSupport

/// What `@Model` writes, and what it refuses at compile time (each a diagnostic naming the
/// property and what to do) — the mistakes the explicit form finds only at the first save.
@Suite struct MacroExpansionTests {
    static var macros: [String: any Macro.Type] {
        [
            "Model": ModelMacro.self, "Attribute": MarkerMacro.self, "Timestamp": MarkerMacro.self,
            "Transient": MarkerMacro.self, "Relationship": MarkerMacro.self, "_ToManyName": ToManyNameMacro.self,
        ]
    }

    /// The expanded source and the diagnostics' messages.
    static func expand(_ source: String) -> (source: String, diagnostics: [String]) {
        let file = Parser.parse(source: source)
        let context = BasicMacroExpansionContext(
            sourceFiles: [file: .init(moduleName: "App", fullFilePath: "Model.swift")])
        let expanded = file.expand(macros: macros, contextGenerator: { _ in context })
        return (expanded.description, context.diagnostics.map(\.message))
    }

    /// `text` without whitespace: the expansion's formatting is not what is tested.
    static func squeezed(_ text: String) -> String { String(text.filter { !$0.isWhitespace }) }

    /// A relationship's previous name reaches the entity, on a to-one and on a to-many.
    @Test func relationshipsCarryTheirPreviousNames() {
        let (source, diagnostics) = Self.expand(
            """
            @Model
            struct Box {
                var id = UUID()
                @Relationship(inverse: Crate.boxes, renamedFrom: "crate") var holder: Crate.ID?
                @Relationship(inverse: \\Label.box, renamedFrom: "tags") static var labels: ToMany<Box, Label>
            }
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let expanded = Self.squeezed(source)
        #expect(
            expanded.contains(
                Self.squeezed(".toOne(\\.holder, Crate.self, inverse: Crate.boxes, renamedFrom: \"crate\")")),
            "\(source)")
        #expect(
            expanded.contains(Self.squeezed(".toMany(labels, inverse: \\Label.box, renamedFrom: \"tags\")")),
            "\(source)")
    }

    @Test func theEntityIsWrittenFromTheStoredProperties() {
        let (source, diagnostics) = Self.expand(
            """
            @Model
            public struct Trip {
                public var id = UUID()
                @Attribute(.unique, rules: [.length(1...100)]) public var name: String
                @Attribute(.indexed) var start: Date
                var nights = 3
                var status: Status = .draft
                @Timestamp(.modification, indexed: true) var updated: Date = .distantPast
                @Relationship(inverse: Person.trips) var traveller: Person.ID?
                @Relationship(to: Agency.self, deleteRule: .deny) var agency: UUID?
                @Relationship(inverse: \\Stop.trip, ordered: true, deleteRule: .cascade)
                static var stops: ToMany<Trip, Stop>
                @Transient var cache: [String] = []
                var summary: String { name }
            }
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        for member in [
            "public static let entity = Entity<Trip>(",
            "\"Trip\",",
            ".attribute(\\.name, unique: true, rules: [.length(1...100)]),",
            ".attribute(\\.start, indexed: true),",
            ".attribute(\\.nights, default: 3),",
            ".attribute(\\.status, default: .draft),",
            ".timestamp(\\.updated, .modification, indexed: true),",
            ".toOne(\\.traveller, Person.self, inverse: Person.trips),",
            ".toOne(\\.agency, Agency.self, deleteRule: .deny),",
            ".toMany(stops, inverse: \\Stop.trip, ordered: true, deleteRule: .cascade),",
            "get {\n        ToMany(\"stops\")",
            "enum CodingKeys: String, CodingKey { case id, name, start, nights, status, updated, traveller, agency }",
        ] {
            #expect(Self.squeezed(source).contains(Self.squeezed(member)), "missing \(member) in:\n\(source)")
        }
        #expect(!source.contains("cache") || !source.contains(".attribute(\\.cache"), "a transient is not stored")
        #expect(!source.contains("\\.summary"), "a computed property is not stored")
    }

    @Test(
        arguments: [
            ("struct Note { var id = UUID()\n var tags: [[String]] }", "Strata cannot store `tags` of type [[String]]"),
            (
                "struct Note { var id = UUID()\n var scores: [Int: Int]? }",
                "cannot store `scores` of type [Int: Int]?"
            ),
            ("struct Note { var id = UUID()\n var pair: (Int, Int) }", "cannot store `pair` of type (Int, Int)"),
            ("struct Note { var id = UUID()\n var check: () -> Bool }", "cannot store `check`"),
            ("struct Note { var id = UUID()\n var seen: Set<[Int]> }", "cannot store `seen` of type Set<[Int]>"),
            ("struct Note { var id = UUID()\n var maybe: [String?] }", "cannot store `maybe` of type [String?]"),
            (
                "struct Note { var id = UUID()\n @Transient var cache: Int }",
                "@Transient `cache` needs an initial value"
            ),
            (
                "struct Note { var id = UUID()\n @Relationship var owner: UUID? }",
                "the destination of to-one `owner` cannot be read from its type"
            ),
            (
                "struct Note { var id = UUID()\n @Relationship(inverse: Tag.notes) static var tags: [Tag] }",
                "give `tags` the type `ToMany<Self, Destination>`"
            ),
            ("struct Note { var title: String }", "a @Model needs a stored `id`"),
            ("final class Note { var id = UUID() }", "@Model declares a struct"),
            ("struct Note { var id = UUID()\n let kind = \"x\" }", "`let kind` with an initial value is never decoded"),
            ("struct Note { var id = UUID()\n var made = Date() }", "give `made` a type annotation"),
        ])
    func mistakesAreCompileTimeErrorsNamingTheProperty(_ source: String, _ message: String) {
        let (_, diagnostics) = Self.expand("@Model\n" + source)
        #expect(diagnostics.contains { $0.contains(message) }, "expected “\(message)”, got \(diagnostics)")
    }

    @Test func anEntityNameARenameAndConstraintsArePassedOn() {
        let (source, diagnostics) = Self.expand(
            """
            @Model("Voyage", renamedFrom: "Trip")
            struct Trip {
                static let constraints: [EntityMember<Trip>] = [.index(\\.name, \\.start)]
                var id: String
                var name: String
                var start: Date
                @Attribute(.composite) var address: Address
                @Attribute(name: "title_text", default: "untitled", renamedFrom: "heading") var title: String
            }
            """)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        for member in [
            "\"Voyage\", renamedFrom: \"Trip\",", "] + constraints)",
            ".composite(\\.address),",
            ".attribute(\\.title, name: \"title_text\", default: \"untitled\", renamedFrom: \"heading\"),",
        ] {
            #expect(Self.squeezed(source).contains(Self.squeezed(member)), "missing \(member) in:\n\(source)")
        }
        #expect(!source.contains("CodingKeys"), "no transient, no coding keys")
    }
}
