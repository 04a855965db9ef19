import Foundation
import Synchronization
import Strata

/// The demo's migration: a small notes store written with version 1, refused by version 2 without
/// a plan (naming what changed), then migrated with one — a rename, a default, and a custom stage —
/// with its progress, all in one write.
extension Demo {
    enum NotesV1 {
        struct Note: PersistentModel {
            var id: Int64
            var title: String
            var body: String
            static let entity = Entity<Note>("Note", [.attribute(\.title), .attribute(\.body)])
        }
    }

    struct Note: PersistentModel {
        var id: Int64
        var heading: String
        var body: String
        var pinned = false
        var words = 0
        static let entity = Entity<Note>(
            "Note",
            [
                .attribute(\.heading, renamedFrom: "title"), .attribute(\.body),
                .attribute(\.pinned, default: false), .attribute(\.words, default: 0),
            ])
    }

    /// A scratch store beside the demo's (same backend), removed afterwards.
    static func scratchURL(beside url: String) throws -> (url: String, remove: @Sendable () -> Void) {
        let location = try StoreLocation(url)
        let name = "strata-demo-notes-\(UUID().uuidString.prefix(8))"
        switch location.scheme {
        case "memory":
            return ("memory:\(name)", {})
        case "sqlite" where location.path == ":memory:":
            return ("memory:\(name)", {})
        default:
            let directory = location.path.isEmpty ? "." : (location.path as NSString).deletingLastPathComponent
            let path = ((directory.isEmpty ? "." : directory) as NSString).appendingPathComponent(
                name + (location.scheme == "lmdb" ? ".lmdb" : "." + location.scheme))
            return (
                "\(location.scheme):\(path)",
                {
                    for suffix in ["", "-wal", "-shm", ".journal", ".lock"] {
                        try? FileManager.default.removeItem(atPath: path + suffix)
                    }
                }
            )
        }
    }

    func showMigration(url: String) async throws {
        let (scratch, remove) = try Self.scratchURL(beside: url)
        defer { remove() }
        let v1 = try Schema(NotesV1.Note.self)
        let old = try await Store.open(
            scratch, schema: v1, options: OpenOptions(migrations: MigrationPlan(versions: [SchemaVersion("1", v1)])))
        try await old.repository(NotesV1.Note.self).insert(contentsOf: [
            NotesV1.Note(id: 1, title: "Groceries", body: "milk eggs bread"),
            NotesV1.Note(id: 2, title: "Lisbon", body: "book the tram tour"),
            NotesV1.Note(id: 3, title: "Ideas", body: "a store that migrates itself"),
        ])
        try await old.close()
        print("  \(scratch) holds 3 notes written with version 1 (title, body)")
        let v2 = try Schema(Note.self)
        do {
            _ = try await Store.open(scratch, schema: v2)
        } catch let error as StrataError {
            let differences =
                error.message.components(separatedBy: "differs: ").last?.components(separatedBy: ". Open it").first
                ?? error.message
            print("  opened with version 2 and no plan: \(error.code), naming what differs: \(differences)")
        }
        // Through a shadow copy that replaces the store in one rename, keeping version 1 beside it.
        let location = try StoreLocation(scratch)
        let backup = "\(location.scheme):\(location.path).v1-backup"
        defer {
            for suffix in ["", "-wal", "-shm", ".journal", ".lock"] {
                try? FileManager.default.removeItem(atPath: location.path + ".v1-backup" + suffix)
            }
        }
        let plan = MigrationPlan(
            versions: [SchemaVersion("1", v1), SchemaVersion("2", v2)],
            stages: [
                .custom(from: "1", to: "2") { migration in
                    try migration.forEachRecord("Note") { note in
                        guard case .string(let body) = note["body"] else { return }
                        var counted = note
                        counted["words"] = .int(Int64(body.split(separator: " ").count))
                        try migration.put(counted)
                    }
                }
            ],
            strategy: .shadowCopy(backup: location.path + ".v1-backup"))
        for step in try LightweightMigration.steps(from: SchemaDescription(v1.versioned("1")), to: v2) {
            print("  inferred: \(step)")
        }
        let phases = Mutex<[String]>([])
        let store = try await Store.open(
            scratch, schema: v2,
            options: OpenOptions(
                migrations: plan,
                progress: { step in
                    phases.withLock { if $0.last != "\(step.phase)" { $0.append("\(step.phase)") } }
                }))
        print("  migrated with the plan through a shadow copy: \(phases.withLock { $0 }.joined(separator: " → "))")
        for note in try await store.repository(Note.self).fetch(Query<Note>.all.sorted(by: \.heading)) {
            print("    #\(note.id) \(note.heading): pinned \(note.pinned), \(note.words) words")
        }
        if let entry = try await store.history().last {
            print("  history: #\(entry.token) by \(entry.author ?? "-") (\(entry.contextName ?? ""))")
        }
        try await store.close()
        let kept = try await Store.open(backup, schema: v1)
        print(
            "  the backup \(backup) opens as version 1: \(try await kept.repository(NotesV1.Note.self).count()) notes")
        try await kept.close()
    }
}
