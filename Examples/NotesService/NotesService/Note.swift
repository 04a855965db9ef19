import Foundation
import StrataMacros

/// A note, owned by one user: its entity comes from the struct (`@Model`), its dates from the engine.
@Model
public struct Note: Equatable {
    /// The note's ID.
    public var id: UUID
    /// The user the note belongs to.
    @Attribute(.indexed) public var owner: String
    /// A title, 1 to 200 characters.
    @Attribute(rules: [.length(1...200)]) public var title: String
    /// The text.
    @Attribute(rules: [.length(0...100_000)]) public var body: String
    /// Whether the owner pinned it.
    public var pinned = false
    /// When it was created (kept by the engine).
    @Timestamp(.creation) public var created: Date = .distantPast
    /// When it last changed (kept by the engine).
    @Timestamp(.modification, indexed: true) public var updated: Date = .distantPast
    /// The note's tags.
    @Relationship(inverse: Tag.notes) public static var tags: ToMany<Note, Tag>
    /// A user's newest notes are an index walk.
    static let constraints: [EntityMember<Note>] = [.index(\.owner, \.updated)]

    /// A note.
    public init(id: UUID = UUID(), owner: String, title: String, body: String = "", pinned: Bool = false) {
        (self.id, self.owner, self.title, self.body, self.pinned) = (id, owner, title, body, pinned)
    }
}

/// A tag, created on first use; its ID is its label, lowercased.
@Model
public struct Tag: Equatable {
    /// The label, lowercased.
    public var id: String
    /// The label as first written: letters, digits, spaces and dashes.
    @Attribute(rules: [.pattern("[\\p{L}\\p{N} -]{1,40}", named: "tag")]) public var label: String
    /// The notes tagged with it.
    @Relationship public static var notes: ToMany<Tag, Note>

    /// The tag of `label`.
    public init(label: String) { (id, self.label) = (label.lowercased(), label) }
}
