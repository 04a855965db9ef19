import Foundation
import Strata

// Deny on every relationship storage, in both directions: Shelf.books (ordered links) ↔ Book.shelf
// (to-one), Book.chapters (derived from Chapter.book) ↔ Chapter.book (to-one), Author.books
// (link list) ↔ Book.authors (the other side of the many-to-many). Every side denies.

/// Holds books in order; cannot go while it holds any.
public struct Shelf: PersistentModel, Equatable {
    public var id: UUID
    /// The shelf's label.
    public var label: String

    /// A shelf.
    public init(id: UUID = UUID(), label: String) {
        self.id = id
        self.label = label
    }

    /// The books on the shelf (deny).
    public static let books = ToMany<Shelf, Book>("books")

    public static let entity = Entity<Shelf>(
        "Shelf",
        [
            .attribute(\.label),
            .toMany(books, inverse: \Book.shelf, ordered: true, deleteRule: .deny),
        ])
}

/// A book: deny on every relationship storage.
public struct Book: PersistentModel, Equatable {
    public var id: UUID
    /// The title.
    public var title: String
    /// The shelf it stands on.
    public var shelf: Shelf.ID?

    /// A book.
    public init(id: UUID = UUID(), title: String, shelf: Shelf.ID? = nil) {
        self.id = id
        self.title = title
        self.shelf = shelf
    }

    /// The book's chapters.
    public static let chapters = ToMany<Book, Chapter>("chapters")
    /// The book's authors (many-to-many).
    public static let authors = ToMany<Book, Author>("authors")

    public static let entity = Entity<Book>(
        "Book",
        [
            .attribute(\.title),
            .toOne(\.shelf, Shelf.self, inverse: Shelf.books, deleteRule: .deny),
            .toMany(chapters, inverse: \Chapter.book, deleteRule: .deny),
            .toMany(authors, inverse: Author.books, deleteRule: .deny),
        ])
}

/// A chapter of a book.
public struct Chapter: PersistentModel, Equatable {
    public var id: UUID
    /// The title.
    public var title: String
    /// The book it belongs to.
    public var book: Book.ID?

    /// A chapter.
    public init(id: UUID = UUID(), title: String, book: Book.ID? = nil) {
        self.id = id
        self.title = title
        self.book = book
    }

    public static let entity = Entity<Chapter>(
        "Chapter",
        [
            .attribute(\.title),
            .toOne(\.book, Book.self, inverse: Book.chapters, deleteRule: .deny),
        ])
}

/// String IDs on a link list.
public struct Author: PersistentModel, Equatable {
    public var id: String
    /// The author's name.
    public var name: String

    /// An author.
    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }

    /// The author's books.
    public static let books = ToMany<Author, Book>("books")

    public static let entity = Entity<Author>(
        "Author",
        [
            .attribute(\.name),
            .toMany(books, inverse: Book.authors, deleteRule: .deny),
        ])
}
