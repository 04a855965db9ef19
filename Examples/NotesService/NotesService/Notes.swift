import Foundation
import Strata

/// The service: what a note's owner may do, written once against ``ModelRepository`` — so it runs
/// with each call its own save, inside a unit of work, or against a test double.
public struct Notes<Repository: ModelRepository<Note>>: Sendable {
    /// Where notes are read and written.
    public let notes: Repository

    /// The service over a repository.
    public init(notes: Repository) { self.notes = notes }

    /// One page of the owner's notes, newest first, and the cursor of the next page.
    public func page(of owner: String, after cursor: String?, limit: Int) async throws -> Page<Note> {
        let query = Query<Note>.where(\.owner == owner).sorted(by: \.updated, .descending).limit(
            min(max(limit, 1), 100))
        return try await notes.fetch(query, after: try cursor.map(PageCursor.init(token:)))
    }

    /// The owner's note and its version (the ETag). Someone else's is "not found".
    public func note(_ id: Note.ID, of owner: String) async throws -> Versioned<Note> {
        guard let found = try await notes.fetchVersioned(id), found.model.owner == owner else {
            throw StrataError(.notFound, entity: "Note", "no such note")
        }
        return found
    }

    /// A new note.
    public func create(for owner: String, title: String, body: String) async throws -> Versioned<Note> {
        let note = Note(owner: owner, title: title, body: body)
        try await notes.insert(note)
        return Versioned(model: note, version: 1)
    }

    /// Changes a note if it is still at `expectedVersion` (the client's `If-Match`).
    public func edit(
        _ id: Note.ID, of owner: String, expectedVersion: Int64, title: String?, body: String?, pinned: Bool?
    ) async throws {
        var note = try await self.note(id, of: owner).model
        note.title = title ?? note.title
        note.body = body ?? note.body
        note.pinned = pinned ?? note.pinned
        note.updated = Date()
        try await notes.update(note, expectedVersion: expectedVersion)
    }

    /// Deletes the owner's note.
    public func delete(_ id: Note.ID, of owner: String) async throws {
        _ = try await note(id, of: owner)
        try await notes.delete(id)
    }

    /// How many notes the owner has, how many pinned, and when the newest changed.
    public func stats(of owner: String) async throws -> Stats {
        let (count, newest) = try await notes.aggregate(.count, .max(\.updated), where: \.owner == owner)
        let pinned = try await notes.count(where: \.owner == owner && \.pinned == true)
        return Stats(count: count, pinned: pinned, newest: newest)
    }

    /// What ``stats(of:)`` answers.
    public struct Stats: Codable, Sendable, Equatable {
        /// Notes.
        public var count: Int
        /// Pinned notes.
        public var pinned: Int
        /// When the newest changed, if there is one.
        public var newest: Date?
    }
}
