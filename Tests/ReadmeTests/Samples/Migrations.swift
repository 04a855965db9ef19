// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Foundation
import Strata

enum V1 {  // version 1, as it shipped
    struct Note: PersistentModel {
        var id = UUID()
        var title: String
        var body: String
        static let entity = Entity<Note>("Note", [.attribute(\.title), .attribute(\.body)])
    }
}

struct Note: PersistentModel {  // the app's model now
    var id = UUID()
    var heading: String
    var body: String
    var pinned = false
    var words = 0
    static let entity = Entity<Note>("Note", [
        .attribute(\.heading, renamedFrom: "title"), .attribute(\.body),
        .attribute(\.pinned, default: false), .attribute(\.words, default: 0),
    ])
}

func openNotes(at path: String = "./notes.sqlite") async throws -> Store {
    let plan = MigrationPlan(
        versions: [SchemaVersion("1", try Schema(V1.Note.self)), SchemaVersion("2", try Schema(Note.self))],
        stages: [.custom(from: "1", to: "2") { migration in
            // After the inferred steps (rename, defaults), count each note's words.
            try migration.forEachRecord("Note") { note in
                guard case .string(let body) = note["body"] else { return }
                var counted = note
                counted["words"] = .int(Int64(body.split(separator: " ").count))
                try migration.put(counted)
            }
        }])
    return try await Store.open("sqlite:\(path)", schema: try Schema(Note.self), options: OpenOptions(migrations: plan))
}

// Migrations article, "Freezing a release as a schema file".
/// At release: freeze the schema this release ships, next to the sources.
func freezeRelease(_ version: String, _ schema: Schema, into folder: URL) throws {
    try SchemaFile(schema.versioned(version)).write(to: folder.appendingPathComponent("v\(version).schema.json").path)
}

/// Later releases: the frozen file is the old version; only the app's models are code.
func openNotes(at path: String, frozen folder: URL) async throws -> Store {
    let plan = MigrationPlan(versions: [
        try SchemaVersion("1", contentsOf: folder.appendingPathComponent("v1.schema.json")),
        SchemaVersion("2", try Schema(Note.self)),
    ])
    return try await Store.open("sqlite:\(path)", schema: try Schema(Note.self), options: OpenOptions(migrations: plan))
}
