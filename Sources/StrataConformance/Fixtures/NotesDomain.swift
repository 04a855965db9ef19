import Foundation
import Strata

// Full-text search's domain: notes with a title and a body in one weighted index, a tag for the
// filters a search is combined with, and a notebook whose delete cascades to its notes (so a
// cascade must keep the index too).

/// A notebook: deleting one deletes its notes.
struct Notebook: PersistentModel, Equatable {
    var id: String
    var name: String

    static let notes = ToMany<Notebook, Note>("notes")

    static let entity = Entity<Notebook>(
        "Notebook", [.attribute(\.name), .toMany(notes, inverse: \Note.notebook, deleteRule: .cascade)])
}

/// A note, searchable through its title (words count twice) and its body.
struct Note: PersistentModel, Equatable {
    var id: String
    var title: String
    var body: String = ""
    var tag: String?
    var notebook: Notebook.ID?

    static let entity = Entity<Note>(
        "Note",
        [
            .attribute(\.title), .attribute(\.body), .attribute(\.tag),
            .toOne(\.notebook, Notebook.self, inverse: Notebook.notes),
            .search("text", weighted: [(\Note.title, 2), (\Note.body, 1)]),
        ])
}

enum NotesDomain {
    static func schema() throws -> Schema { try Schema(Notebook.self, Note.self) }

    /// The notes without their full-text index (what a migration adds it to).
    static func schemaWithoutIndex() throws -> Schema {
        var schema = try schema()
        schema = try Schema(
            entities: schema.entities.map { entity in
                var plain = entity
                plain.searchIndexes = []
                return plain
            })
        return schema
    }
}
