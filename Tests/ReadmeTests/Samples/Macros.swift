// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// StrataMacros catalog.
import Foundation
import StrataMacros

@Model
struct Author {
    var id = UUID()
    @Attribute(rules: [.length(1...80)]) var name: String
    @Attribute(.unique, rules: [.pattern(#"[a-z0-9-]+"#, named: "slug")]) var slug: String
    var rating = 3                                   // a literal initial value is the migration default
    @Timestamp(.creation) var joined: Date = .distantPast
    @Timestamp(.modification) var updated: Date = .distantPast
    @Transient var draftCount: Int = 0               // not stored
    @Relationship(deleteRule: .cascade) static var books: ToMany<Author, Book>
}

@Model
struct Book {
    var id = UUID()
    @Attribute(.indexed) var title: String
    @Relationship(inverse: Author.books) var author: Author.ID   // required: a non-optional ID
    @Relationship(ordered: true, deleteRule: .cascade) static var chapters: ToMany<Book, Chapter>
    static let constraints: [EntityMember<Book>] = [.unique(\.author, \.title)]
}

@Model
struct Chapter {
    var id = UUID()
    var heading: String
    @Relationship(inverse: Book.chapters) var book: Book.ID?
}

// Full-text search article: the index with the model macro.
@Model
struct Story {
    var id: UUID
    var headline: String
    var text: String

    static let constraints: [EntityMember<Story>] = [
        .search("words", weighted: [(\Story.headline, 3), (\Story.text, 1)])
    ]
}
