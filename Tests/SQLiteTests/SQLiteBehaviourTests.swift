import Foundation
import GRDB
import Strata
import StrataConformance
import Synchronization
import Testing

@testable import StrataSQLite

private typealias Tag = StrataConformance.Tag

@Suite("SQLite: behaviour")
struct SQLiteBehaviourTests {
    static let hostile = [
        "'); DROP TABLE \"Person\"; --", "\" OR 1=1 --", "Robert'); DELETE FROM strata_meta; --", "%_\\",
        "tab\tand\nnewline",
    ]

    @Test func hostileValuesAreOnlyEverBound() async throws {
        let store = Store(backend: try await SQLiteBackend.open(path: ":memory:", schema: try TravelDomain.schema()))
        for (index, name) in Self.hostile.enumerated() {
            try await store.repository(Person.self).insert(Person(name: name, email: "p\(index)@example.com"))
        }
        let people = store.repository(Person.self)
        for name in Self.hostile {
            #expect(try await people.count(where: \.name == name) == 1, "== \(name)")
            #expect(try await people.count(where: .contains(\.name, name)) == 1, "contains \(name)")
            #expect(try await people.count(where: .in(\.name, [name, "x"])) == 1, "in \(name)")
            #expect(
                try await people.count(where: .equals(\.name, name.uppercased(), options: .caseInsensitive)) >= 1,
                "folded \(name)")
        }
        #expect(try await people.count() == Self.hostile.count, "every table is intact")
        #expect(try await store.history().count == Self.hostile.count)
        var query = SQLiteQuery(layout: SQLiteLayout(schema: try TravelDomain.schema()))
        let sql = try query.select(
            FetchPlan(entity: "Person", predicate: .compare("name", .equal, .string(Self.hostile[0]), [])))
        #expect(!sql.contains("DROP"), "the value is not in the SQL text: \(sql)")
        #expect(query.arguments.contains(Self.hostile[0].databaseValue))
    }

    @Test func hostileIdentifiersAreQuoted() async throws {
        let entity = EntityDescription(
            name: "We\"ird; DROP TABLE x; --", idKind: .string,
            attributes: [
                AttributeDescription(name: "na\"me", type: .string, isIndexed: true),
                AttributeDescription(name: "select", type: .int, isOptional: true),
            ],
            uniqueConstraints: [["na\"me"]])
        let schema = try Schema(entities: [entity])
        let store = Store(backend: try await SQLiteBackend.open(path: ":memory:", schema: schema))
        try await store.transaction { tx in
            try tx.insert(Record(entity: entity.name, id: .string("a"), values: ["na\"me": "x", "select": 1]))
            try tx.insert(Record(entity: entity.name, id: .string("b"), values: ["na\"me": "y"]))
        }
        let found = try await store.read {
            try $0.fetch(
                FetchPlan(
                    entity: entity.name, predicate: .compare("na\"me", .equal, "y", []), sort: [SortKey("select")]))
        }
        #expect(found.map(\.id) == [.string("b")])
    }

    @Test func aReaderProceedsWhileAWriteIsOpen() async throws {
        try await withTemporaryPath { path in
            let store = Store(backend: try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema()))
            let writing = Atomic<Bool>(false)
            let readerDone = Atomic<Bool>(false)
            let seenDuringWrite = Atomic<Int>(-1)
            async let write: Void = store.transaction { tx in
                try tx.insert(Tag(id: "first", label: "First"))
                writing.store(true, ordering: .releasing)
                // Hold the write transaction open until the reader has read (at most 120 s: on a
                // loaded machine the reader's task may wait long for a thread).
                let deadline = Date().addingTimeInterval(120)
                while !readerDone.load(ordering: .acquiring) && Date() < deadline { usleep(1_000) }
                for index in 0..<100 { try tx.insert(Tag(id: "t\(index)", label: "T\(index)")) }
            }
            while !writing.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(1)) }
            seenDuringWrite.store(try await store.repository(Tag.self).count(), ordering: .releasing)
            readerDone.store(true, ordering: .releasing)
            try await write
            #expect(
                seenDuringWrite.load(ordering: .acquiring) == 0, "the reader saw the committed state, not half a save")
            #expect(try await store.repository(Tag.self).count() == 101)
            try await store.close()
        }
    }

    @Test func twoStoresOnOneFile() async throws {
        try await withTemporaryPath { path in
            let first = Store(backend: try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema()))
            let secondBackend = try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema())
            let second = Store(backend: secondBackend)
            #expect(try await secondBackend.detectExternalCommits() == false, "the first call records the state")
            try await first.repository(Tag.self).insert(Tag(id: "a", label: "A"))
            #expect(try await secondBackend.detectExternalCommits() == true, "a commit by the other store is detected")
            #expect(try await secondBackend.detectExternalCommits() == false)
            #expect(try await second.repository(Tag.self).fetch("a")?.label == "A")
            try await second.repository(Tag.self).insert(Tag(id: "b", label: "B"))
            #expect(try await secondBackend.detectExternalCommits() == false, "its own commits are not external")
            #expect(try await first.repository(Tag.self).count() == 2)
            let history = try await first.history()
            #expect(
                history.map(\.token) == [HistoryToken(1), HistoryToken(2)], "tokens stay monotonic across both stores")
            await #expect(throws: StrataError.self) {
                try await second.repository(Tag.self).insert(Tag(id: "c", label: "A"))
            }
            try await first.close()
            try await second.close()
        }
    }

    @Test func anInterruptedWriteLeavesThePreviousState() async throws {
        try await withTemporaryPath { path in
            let backend = try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema())
            let store = Store(backend: backend)
            try await store.repository(Tag.self).insert(Tag(id: "keep", label: "Keep"))
            struct PowerCut: Error {}
            await #expect(throws: PowerCut.self) {
                try await backend.write { tx in
                    try tx.put(Record(entity: "Tag", id: .string("keep"), version: 9, values: ["label": "Changed"]))
                    try tx.put(Record(entity: "Tag", id: .string("new"), version: 1, values: ["label": "New"]))
                    try tx.setLinks("Tag", relationship: "trips", from: .string("keep"), to: [.uuid(UUID())])
                    try tx.setMetadata("strata.history.last", Array("999".utf8))
                    throw PowerCut()
                }
            }
            try await store.close()
            let reopened = Store(backend: try await SQLiteBackend.open(path: path, schema: try TravelDomain.schema()))
            #expect(try await reopened.repository(Tag.self).fetch() == [Tag(id: "keep", label: "Keep")])
            #expect(try await reopened.currentHistoryToken() == HistoryToken(1))
            #expect(try await reopened.read { try $0.record("Tag", id: .string("keep"))?.version } == 1)
            try await reopened.close()
        }
    }

    @Test func equalityOnAnIndexedAttributeUsesTheIndex() async throws {
        let backend = try await SQLiteBackend.open(path: ":memory:", schema: try TravelDomain.schema())
        var query = SQLiteQuery(layout: backend.layout)
        let sql = try query.select(FetchPlan(entity: "Trip", predicate: .compare("start", .equal, .date(Date()), [])))
        let arguments = query.arguments
        let plan = try await backend.read { tx in
            try Row.fetchAll(
                (tx as! SQLiteReadTransaction).db, sql: "EXPLAIN QUERY PLAN " + sql,
                arguments: StatementArguments(arguments)
            ).map { $0["detail"] as String? ?? "" }
        }
        #expect(plan.contains { $0.contains("USING INDEX") }, "\(plan)")
    }
}
