import Foundation
import Strata
import StrataTools

/// A journal entry whose dates the engine keeps (``AutomaticTimestamp``).
struct StampedEntry: PersistentModel, Equatable {
    var id: String
    var title: String
    var created: Date = .distantPast
    var updated: Date? = nil

    static let entity = Entity<StampedEntry>(
        "StampedEntry",
        [.attribute(\.title), .timestamp(\.created, .creation), .timestamp(\.updated, .modification, indexed: true)])
}

/// Automatic timestamps are kept by the engine on every write path: stamped at insert, the
/// modification stamp moved by every save that changes the record and by no other, the creation
/// stamp never moved by an update, and a copy keeping the values it brings.
extension ValueChecks {
    static let timestamps: [ConformanceCheck] = [
        ConformanceCheck(.values, "automaticTimestampsAreStampedOnEveryWritePath") { c in
            let store = try await c.store(try Schema(StampedEntry.self))
            let entries = store.repository(StampedEntry.self)
            /// Runs `write` and returns the window its save's time must fall in.
            func timed(_ write: () async throws -> Void) async throws -> ClosedRange<Date> {
                let before = Date()
                try await write()
                return before...Date()
            }
            func entry(_ id: String) async throws -> StampedEntry { try expectNotNil(try await entries.fetch(id), id) }

            let inserted = try await timed { try await entries.insert(StampedEntry(id: "a", title: "A")) }
            var a = try await entry("a")
            try expect(inserted.contains(a.created) && a.updated == a.created, "insert stamps both: \(a)")
            let created = a.created
            let writes: [(String, @Sendable () async throws -> Void)] = [
                (
                    "t",
                    { @Sendable in try await store.transaction { try $0.insert(StampedEntry(id: "t", title: "T")) } }
                ),
                ("u", { @Sendable in try await entries.upsert(StampedEntry(id: "u", title: "U")) }),
                ("i", { @Sendable in _ = try await entries.insertIfAbsent(StampedEntry(id: "i", title: "I")) }),
                (
                    "c",
                    { @Sendable in
                        let context = store.makeContext()
                        try await context.insert(StampedEntry(id: "c", title: "C"))
                        try await context.save()
                    }
                ),
            ]
            for (id, write) in writes {
                let window = try await timed(write)
                let stamped = try await entry(id)
                try expect(window.contains(stamped.created) && stamped.updated == stamped.created, "\(id): \(stamped)")
            }

            a.title = "A2"
            a.created = .distantFuture
            let changedAt = try await timed { try await entries.update(a) }
            a = try await entry("a")
            try expectEqual(a.created, created, "an update keeps the creation stamp, whatever the model says")
            try expect(changedAt.contains(try expectNotNil(a.updated)), "an update moves the modification stamp")
            let version = try expectNotNil(try await entries.fetchVersioned("a")).version
            var same = a
            same.updated = .distantPast
            try await entries.update(same)
            try expectEqual(try await entry("a"), a, "a save that only touches a stamp changes nothing")
            try expectEqual(try expectNotNil(try await entries.fetchVersioned("a")).version, version)

            let context = store.makeContext()
            var edited = try expectNotNil(try await context.fetch(StampedEntry.self, id: "a"))
            edited.title = "A3"
            try await context.update(edited)
            let savedAt = try await timed { try await context.save() }
            let seen = try expectNotNil(try await context.fetch(StampedEntry.self, id: "a"))
            try expect(savedAt.contains(try expectNotNil(seen.updated)), "the context sees the stamp it saved: \(seen)")
            let last = try expectNotNil(try await store.history(after: nil).last?.changes.first)
            try expectEqual(last.changedProperties, ["title", "updated"], "history names the stamp")

            let copy = try await c.store(try Schema(StampedEntry.self))
            _ = try await StoreCopier(from: store, to: copy).run()
            try expectEqual(
                try await copy.repository(StampedEntry.self).fetch(), try await entries.fetch(),
                "a copy keeps the stamps it brings")
        }
    ]
}
