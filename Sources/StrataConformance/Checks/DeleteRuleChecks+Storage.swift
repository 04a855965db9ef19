import Foundation
import Strata

/// Deny on every relationship storage, both directions: a delete is refused while a destination
/// survives the save, and allowed when the destination is deleted in the same save — in either
/// order, through a transaction, a context and a batch delete.
extension DeleteRuleChecks {
    /// Two records that deny each other's delete, over one relationship pair.
    struct DenyPair: Sendable {
        var a: RecordKey
        var aRelationship: String
        var b: RecordKey
        var bRelationship: String
    }

    /// Makes a fresh pair in `store` for one storage kind.
    typealias MakePair = @Sendable (Store) async throws -> DenyPair

    static let orderedLinksPair: MakePair = { store in
        let shelf = Shelf(label: "S")
        let book = Book(title: "B", shelf: shelf.id)
        try await store.transaction { tx in
            try tx.insert(shelf)
            try tx.insert(book)
        }
        return DenyPair(
            a: RecordKey(entity: "Shelf", id: shelf.id.recordID), aRelationship: "books",
            b: RecordKey(entity: "Book", id: book.id.recordID), bRelationship: "shelf")
    }

    static let derivedPair: MakePair = { store in
        let book = Book(title: "B")
        let chapter = Chapter(title: "C", book: book.id)
        try await store.transaction { tx in
            try tx.insert(book)
            try tx.insert(chapter)
        }
        return DenyPair(
            a: RecordKey(entity: "Book", id: book.id.recordID), aRelationship: "chapters",
            b: RecordKey(entity: "Chapter", id: chapter.id.recordID), bRelationship: "book")
    }

    static let linksPair: MakePair = { store in
        let author = Author(id: "author-\(UUID().uuidString.prefix(8))", name: "A")
        let book = Book(title: "B")
        try await store.transaction { tx in
            try tx.insert(author)
            try tx.insert(book)
            try tx.link(Author.books, from: author.id, to: book.id)
        }
        return DenyPair(
            a: RecordKey(entity: "Author", id: author.id.recordID), aRelationship: "books",
            b: RecordKey(entity: "Book", id: book.id.recordID), bRelationship: "authors")
    }

    static func denyCheck(_ name: String, _ makePair: @escaping MakePair) -> ConformanceCheck {
        ConformanceCheck(.deleteRules, name) { c in
            let store = try await c.store()
            let pair = try await makePair(store)
            // Alone, each side is refused, naming its own relationship; nothing changes.
            for (key, relationship) in [(pair.a, pair.aRelationship), (pair.b, pair.bRelationship)] {
                try await expectRejected(store, .deleteDenied, entity: key.entity, property: relationship) {
                    try await store.transaction { tx in try tx.delete(key.entity, id: key.id) }
                }
                let context = store.makeContext()
                try await context.deleteRecord(key)
                try await expectRejected(store, .deleteDenied, entity: key.entity, property: relationship) {
                    try await context.save()
                }
            }
            // Together, in either order, through each write path: allowed.
            for path in ["transaction a→b", "transaction b→a", "context", "batch"] {
                let fresh = try await makePair(store)
                switch path {
                case "transaction a→b", "transaction b→a":
                    let keys = path.hasSuffix("a→b") ? [fresh.a, fresh.b] : [fresh.b, fresh.a]
                    try await store.transaction { tx in for key in keys { try tx.delete(key.entity, id: key.id) } }
                case "context":
                    let context = store.makeContext()
                    try await context.deleteRecord(fresh.b)
                    try await context.deleteRecord(fresh.a)
                    try await context.save()
                default:
                    try await store.transaction { tx in
                        try tx.delete(
                            matching: FetchPlan(
                                entity: fresh.a.entity, predicate: .compare("id", .equal, fresh.a.id.value, [])))
                        try tx.delete(
                            matching: FetchPlan(
                                entity: fresh.b.entity, predicate: .compare("id", .equal, fresh.b.id.value, [])))
                    }
                }
                for key in [fresh.a, fresh.b] {
                    try expectEqual(
                        try await store.read { try $0.record(key.entity, id: key.id) }, nil, "\(key) deleted by \(path)"
                    )
                }
            }
            try expectNotNil(
                try await store.read { try $0.record(pair.a.entity, id: pair.a.id) }, "the first pair is untouched")
        }
    }

    static let denyOnEveryStorage: [ConformanceCheck] = [
        denyCheck("denyOnAnOrderedListAndItsToOneInBothDirections", orderedLinksPair),
        denyCheck("denyOnADerivedToManyAndItsToOneInBothDirections", derivedPair),
        denyCheck("denyOnBothSidesOfAManyToMany", linksPair),
    ]
}

extension ModelContext {
    /// Stages a delete of an untyped record (for checks that work across entities).
    func deleteRecord(_ key: RecordKey) async throws {
        switch key.entity {
        case "Shelf": try await delete(Shelf.self, id: try requireID(key))
        case "Book": try await delete(Book.self, id: try requireID(key))
        case "Chapter": try await delete(Chapter.self, id: try requireID(key))
        case "Author": try await delete(Author.self, id: try requireID(key))
        default: throw StrataError(.unknownEntity, entity: key.entity, "no typed delete for \(key.entity) in the suite")
        }
    }
}

func requireID<ID: RecordIdentifier>(_ key: RecordKey) throws -> ID {
    guard let id = ID(recordID: key.id) else {
        throw StrataError(.typeMismatch, entity: key.entity, recordID: key.id, "not a \(ID.self)")
    }
    return id
}
