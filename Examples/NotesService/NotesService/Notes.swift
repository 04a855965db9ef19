import Foundation
import Strata

/// The service: what a note's owner may do, written once against a ``UnitOfWork`` — a store (each
/// unit its own save), a context (the caller saves), an in-memory store in tests.
public struct Notes<Work: UnitOfWork>: Sendable {
    /// Where notes are read and written.
    public let work: Work

    /// The service over a store or a context.
    public init(work: Work) { self.work = work }

    /// One page of the owner's notes, newest first, and the cursor of the next page.
    public func page(of owner: String, after cursor: String?, limit: Int) async throws -> Page<Note> {
        let query = Query<Note>.where(\.owner == owner).sorted(by: \.updated, .descending).limit(
            min(max(limit, 1), 100))
        return try await work.repository(Note.self).fetch(query, after: try cursor.map(PageCursor.init(token:)))
    }

    /// The owner's note and its version (the ETag). Someone else's is "not found".
    public func note(_ id: Note.ID, of owner: String) async throws -> Versioned<Note> {
        guard let found = try await work.repository(Note.self).fetchVersioned(id), found.model.owner == owner else {
            throw StrataError(.notFound, entity: "Note", "no such note")
        }
        return found
    }

    /// A new note with its tags, created on first use — one save, race-free under concurrency.
    public func create(for owner: String, title: String, body: String, tags: [String]) async throws -> Versioned<Note> {
        let note = Note(owner: owner, title: title, body: body)
        try await work.unitOfWork { unit in
            try await unit.repository(Note.self).insert(note)
            for tag in tags.map(Tag.init(label:)) {
                try await unit.repository(Tag.self).insertIfAbsent(tag)
                try await unit.repository(Note.self).link(Note.tags, from: note.id, to: tag.id)
            }
        }
        return try await self.note(note.id, of: owner)  // with the stamps the engine set
    }

    /// Changes a note if it is still at `expectedVersion` (the client's `If-Match`).
    public func edit(
        _ id: Note.ID, of owner: String, expectedVersion: Int64, title: String?, body: String?, pinned: Bool?
    ) async throws {
        var note = try await self.note(id, of: owner).model
        note.title = title ?? note.title
        note.body = body ?? note.body
        note.pinned = pinned ?? note.pinned
        try await work.repository(Note.self).update(note, expectedVersion: expectedVersion)
    }

    /// Deletes the owner's note.
    public func delete(_ id: Note.ID, of owner: String) async throws {
        _ = try await note(id, of: owner)
        try await work.repository(Note.self).delete(id)
    }

    /// The note's tags.
    public func tags(of id: Note.ID, of owner: String) async throws -> [Tag] {
        _ = try await note(id, of: owner)
        return try await work.repository(Note.self).related(Note.tags, of: id)
    }

    /// How many notes the owner has, how many pinned, and when the newest changed.
    public func stats(of owner: String) async throws -> Stats {
        let notes = work.repository(Note.self)
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
