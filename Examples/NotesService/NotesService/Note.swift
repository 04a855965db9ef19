import Foundation
import Strata

/// A note, owned by one user.
public struct Note: PersistentModel, Equatable {
    /// The note's ID.
    public var id: UUID
    /// The user the note belongs to.
    public var owner: String
    /// A title, 1 to 200 characters.
    public var title: String
    /// The text.
    public var body: String
    /// Whether the owner pinned it.
    public var pinned: Bool
    /// When it last changed.
    public var updated: Date

    /// A note.
    public init(
        id: UUID = UUID(), owner: String, title: String, body: String = "", pinned: Bool = false, updated: Date = Date()
    ) {
        self.id = id
        self.owner = owner
        self.title = title
        self.body = body
        self.pinned = pinned
        self.updated = updated
    }

    /// The stored shape: owners and times indexed, so a user's newest notes are an index walk.
    public static let entity = Entity<Note>(
        "Note",
        [
            .attribute(\.owner, indexed: true),
            .attribute(\.title, rules: [.length(1...200)]),
            .attribute(\.body, rules: [.length(0...100_000)]),
            .attribute(\.pinned, default: false),
            .attribute(\.updated, indexed: true),
            .index(\.owner, \.updated),
        ])
}
