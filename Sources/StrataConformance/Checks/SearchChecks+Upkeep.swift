import Foundation
import Strata
import StrataStorage
import StrataTools

/// The index over time: many saves (so its segments merge) answer exactly as one save of the
/// same notes; a migration adding an index builds it from the records; damage is reported, never
/// a silently different answer; live queries follow a search.
extension SearchChecks {
    static let vocabulary = ["swift", "server", "rust", "linux", "café", "naïve", "東京", "data", "cloud", "edge"]

    static func randomText(_ random: inout SeededRandom, words: ClosedRange<Int>) -> String {
        (0..<random.int(words)).map { _ in vocabulary[random.int(0...(vocabulary.count - 1))] }.joined(separator: " ")
    }

    /// `count` notes of random words, every third tagged `x`, with IDs in order (`n000`, …).
    static func randomNotes(_ random: inout SeededRandom, count: Int) -> [Note] {
        (0..<count).map { n in
            Note(
                id: String(format: "n%03d", n), title: randomText(&random, words: 1...3),
                body: randomText(&random, words: 0...8), tag: n % 3 == 0 ? "x" : nil)
        }
    }

    static let queries = [
        "swift", "cafe", "rust OR linux", "swift -data", "\"swift server\"", "cl*", "東京 edge", "naive OR cloud",
    ]

    static var upkeep: [ConformanceCheck] {
        [
            ConformanceCheck(.search, "manySavesAnswerExactlyAsOneSaveOfTheSameNotes") { c in
                let seed = UInt64(20_261_127)
                var random = SeededRandom(seed: seed)
                let store = try await c.store(try NotesDomain.schema())
                let notes = store.repository(Note.self)
                var current: [String: Note] = [:]
                // 60 saves: inserts, rewrites and deletes one or a few at a time, so segments
                // are written and merged (eight to a level) many times over.
                for round in 0..<60 {
                    let id = "n\(random.int(0...39))"
                    if current[id] != nil, random.int(0...4) == 0 {
                        try await notes.delete(id)
                        current[id] = nil
                    } else {
                        let note = Note(
                            id: id, title: randomText(&random, words: 1...3), body: randomText(&random, words: 0...8))
                        try await notes.upsert(note)
                        current[id] = note
                    }
                    if round % 20 == 19 {
                        let expected = current.keys.filter { current[$0]?.title.contains("swift") == true }
                        let titled = try await notes.fetch(Query.where(.search("swift", in: "text")))
                        try expect(
                            Set(expected).isSubset(of: Set(titled.map(\.id))),
                            "seed \(seed), round \(round): every note titled swift is found")
                    }
                }
                let fresh = try await c.store(try NotesDomain.schema())
                try await fresh.repository(Note.self).insert(contentsOf: current.values.sorted { $0.id < $1.id })
                for query in queries {
                    try expectEqual(
                        try await ranked(store, query), try await ranked(fresh, query),
                        "seed \(seed): \(query) after 60 saves, ranked as after one")
                }
            },
            ConformanceCheck(.search, "aTopPageEqualsTheFullRankingsSlice") { c in
                let seed = UInt64(20_261_129)
                var random = SeededRandom(seed: seed)
                let store = try await c.store(try NotesDomain.schema())
                let notes = randomNotes(&random, count: 300)
                try await store.repository(Note.self).insert(contentsOf: notes)
                for text in ["swift", "cloud OR data", "cl*"] {
                    let all = try await ranked(store, text)
                    let search = Query<Note>.where(.search(text, in: "text")).sorted(byRelevanceOf: "text")
                    for (offset, limit) in [(0, 7), (5, 10), (60, 20)] {
                        let page = try await store.repository(Note.self).fetch(search.offset(offset).limit(limit))
                        let slice = Array(all.dropFirst(offset).prefix(limit))
                        try expectEqual(
                            page.map(\.id), slice, "seed \(seed): \(text), offset \(offset), limit \(limit)")
                    }
                    let tagged = try await store.repository(Note.self).fetch(
                        Query<Note>.where(.search(text, in: "text") && \.tag == "x").sorted(byRelevanceOf: "text")
                            .limit(30))
                    let expected = all.filter { id in notes.first { $0.id == id }?.tag == "x" }.prefix(30)
                    try expectEqual(tagged.map(\.id), Array(expected), "seed \(seed): \(text) and a filter, top 30")
                }
            },
            ConformanceCheck(.search, "aMigrationAddingAnIndexBuildsItFromTheRecords", requires: [.migrate]) { c in
                let plain = try await c.store(try NotesDomain.schemaWithoutIndex())
                try await plain.repository(Note.self).insert(contentsOf: corpus)
                let versions = [
                    SchemaVersion("1", try NotesDomain.schemaWithoutIndex()),
                    SchemaVersion("2", try NotesDomain.schema()),
                ]
                let indexed = try await c.migrate(
                    plain, to: try NotesDomain.schema(), plan: MigrationPlan(versions: versions, stages: []))
                try expectEqual(try await ranked(indexed, "swift"), ["a", "b", "d"], "built from the records")
                try await indexed.repository(Note.self).insert(Note(id: "e", title: "Swift"))
                try expectEqual(try await found(indexed, "swift"), ["a", "b", "d", "e"], "and kept after")
                let back = MigrationPlan(
                    versions: versions + [SchemaVersion("3", try NotesDomain.schemaWithoutIndex())])
                let removed = try await c.migrate(indexed, to: try NotesDomain.schemaWithoutIndex(), plan: back)
                let left = try await removed.backend.read { tx in
                    try tx.metadata(prefix: "strata.search.", after: nil, limit: nil).count
                }
                try expectEqual(left, 0, "removing the index removes its keys")
            },
            ConformanceCheck(.search, "aDamagedIndexIsReportedNeverSilentlyWrong") { c in
                let store = try await c.store(try NotesDomain.schema())
                try await store.repository(Note.self).insert(contentsOf: corpus)
                let keys = try await store.backend.read { tx in
                    try tx.metadata(prefix: "strata.search.", after: nil, limit: nil).map(\.key)
                }
                let word = try expectNotNil(keys.first { $0.contains("/t/swift ") }, "the word's entries are kept")
                try await store.backend.write { tx in try tx.setMetadata(word, [1, 1, 200, 7]) }
                _ = try await expectError(.corruptStore, entity: "Note") { _ = try await found(store, "swift") }
                try expectEqual(try await found(store, "rust"), ["c"], "other words still answer")
                let stats = try expectNotNil(keys.first { $0.hasSuffix("/stats") }, "statistics are kept")
                try await store.backend.write { tx in try tx.setMetadata(stats, [9]) }
                _ = try await expectError(.corruptStore, entity: "Note") { _ = try await found(store, "rust") }
            },
            ConformanceCheck(.search, "verifyComparesTheIndexWithTheRecords") { c in
                let store = try await c.store(try NotesDomain.schema())
                try await store.repository(Note.self).insert(contentsOf: corpus)
                for id in ["b", "c"] { try await store.repository(Note.self).delete(id) }
                let sound = try await store.checkSearchIndexes()
                try expect(sound.isEmpty, "a kept index agrees with its records: \(sound)")
                // A record changed beneath the engine: its words in the index are now wrong.
                try await store.backend.write { tx in
                    guard var record = try tx.record("Note", id: .string("a")) else { return }
                    record["title"] = .string("Kotlin")
                    try tx.put(record)
                }
                let findings = try await store.checkSearchIndexes()
                try expect(
                    findings.contains {
                        $0.code == .corruptStore && $0.recordID == .string("a") && $0.property == "text"
                    },
                    "the record whose words differ is named: \(findings)")
                try expect(
                    findings.allSatisfy { $0.entity == "Note" && $0.recordID != .string("d") },
                    "and nothing else: \(findings)")
            },
            ConformanceCheck(.search, "aLiveQueryFollowsASearch") { c in
                let store = try await c.store(try NotesDomain.schema())
                try await store.repository(Note.self).insert(contentsOf: corpus)
                let query = Query<Note>.where(.search("swift", in: "text")).sorted(byRelevanceOf: "text")
                let probe = ObservationProbe(store.observe(query))
                let first = try await probe.wait(for: 1)[0]
                try expectEqual(first.models.map(\.id), ["a", "b", "d"])
                try await store.repository(Note.self).update(Note(id: "c", title: "Swift"))
                let second = try await probe.wait(for: 2)[1]
                try expectEqual(second.models.map(\.id), ["c", "a", "b", "d"], "a note that now matches joins, ranked")
                try await store.repository(Note.self).delete("a")
                let third = try await probe.wait(for: 3)[2]
                try expectEqual(third.models.map(\.id), ["c", "b", "d"], "a deleted note leaves")
            },
        ]
    }
}
