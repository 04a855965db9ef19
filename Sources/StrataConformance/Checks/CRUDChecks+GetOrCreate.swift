import Foundation
import Strata

/// Get-or-create and upsert through every repository, and under concurrency: of concurrent
/// inserts of one ID, exactly one inserts and none fails.
extension CRUDChecks {
    static let getOrCreate: [ConformanceCheck] = [
        ConformanceCheck(.crud, "concurrentInsertIfAbsentOfOneIDInsertsOnceAndNoneFails") { c in
            let store = try await c.store()
            let tasks = 8
            let inserted = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
                for index in 0..<tasks {
                    group.addTask {
                        (
                            index,
                            try await store.repository(Tag.self).insertIfAbsent(Tag(id: "news", label: "News \(index)"))
                        )
                    }
                }
                var inserted: [Int] = []
                for try await (index, didInsert) in group where didInsert { inserted.append(index) }
                return inserted
            }
            try expectEqual(inserted.count, 1, "exactly one of \(tasks) concurrent calls inserted")
            let stored = try expectNotNil(try await store.repository(Tag.self).fetch("news"))
            try expectEqual(stored.label, "News \(inserted[0])", "the one that inserted is what is stored")
            try expectEqual(try await store.repository(Tag.self).count(), 1)
        },
        ConformanceCheck(
            .crud, "insertIfAbsentFromSeveralProcessesAtOnceInsertsOnceAndNoneFails", requires: [.otherProcesses]
        ) { c in
            let store = try await c.store()
            let (processes, tasks) = (3, 3)
            let inserted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<processes {
                    group.addTask {
                        try await c.runInOtherProcess(store, ["insert-tag-if-absent", "shared", "Process \(index)"])
                        return false  // the child exits 0 whether it inserted or found the tag
                    }
                }
                for index in 0..<tasks {
                    group.addTask {
                        try await store.repository(Tag.self).insertIfAbsent(Tag(id: "shared", label: "Task \(index)"))
                    }
                }
                var inserted = 0
                for try await didInsert in group where didInsert { inserted += 1 }
                return inserted
            }
            try expect(inserted <= 1, "at most one of this process's tasks inserted (\(inserted))")
            try expectEqual(try await store.repository(Tag.self).count(), 1, "one tag for \(processes + tasks) callers")
            let label = try expectNotNil(try await store.repository(Tag.self).fetch("shared")).label
            try expect(
                inserted == 1 ? label.hasPrefix("Task") : label.hasPrefix("Process"),
                "the stored tag is the inserter's: \(label), \(inserted) inserted here")
        },
        ConformanceCheck(.crud, "anUpdateExpectingAnotherVersionIsVersionMismatchAndWritesNothing") { c in
            let (store, data) = try await c.seeded()
            let read = try expectNotNil(try await store.repository(Person.self).fetchVersioned(data.ana.id))
            var renamed = read.model
            renamed.name = "Ana Maria"
            let error = try await expectError(.versionMismatch, entity: "Person") {
                try await store.repository(Person.self).update(renamed, expectedVersion: read.version + 1)
            }
            try expectEqual(error.httpStatus, 412, "If-Match failed: Precondition Failed")
            try expectEqual(try await store.repository(Person.self).fetch(data.ana.id)?.name, "Ana", "nothing written")
            let context = store.makeContext()
            try await expectError(.versionMismatch, entity: "Person") {
                try await context.repository(Person.self).update(renamed, expectedVersion: read.version + 1)
            }
            try expect(!(await context.hasChanges), "nothing staged")
            try await store.repository(Person.self).update(renamed, expectedVersion: read.version)
            try expectEqual(try await store.repository(Person.self).fetch(data.ana.id)?.name, "Ana Maria")
        },
        ConformanceCheck(.crud, "insertIfAbsentAndUpsertThroughEveryRepository") { c in
            let store = try await c.store()
            // A store's repository.
            try expect(try await store.repository(Tag.self).insertIfAbsent(Tag(id: "a", label: "A")), "inserted")
            try expect(!(try await store.repository(Tag.self).insertIfAbsent(Tag(id: "a", label: "B"))), "kept")
            try expectEqual(try await store.repository(Tag.self).fetch("a")?.label, "A")
            try await store.repository(Tag.self).upsert(Tag(id: "a", label: "A2"))
            try expectEqual(try await store.repository(Tag.self).fetch("a")?.label, "A2")
            // A transaction.
            let inTransaction = try await store.transaction { tx in
                [try tx.insertIfAbsent(Tag(id: "b", label: "B")), try tx.insertIfAbsent(Tag(id: "b", label: "X"))]
            }
            try expectEqual(inTransaction, [true, false], "the second sees the first in the same save")
            // A context's repository (through the protocol a service is generic over).
            let context = store.makeContext()
            func stage<R: ModelRepository<Tag>>(_ tags: R) async throws -> [Bool] {
                [
                    try await tags.insertIfAbsent(Tag(id: "b", label: "Y")),
                    try await tags.insertIfAbsent(Tag(id: "c", label: "C")),
                ]
            }
            try expectEqual(try await stage(context.repository(Tag.self)), [false, true])
            try await context.repository(Tag.self).upsert(Tag(id: "b", label: "Z"))
            try await context.repository(Tag.self).upsert(Tag(id: "d", label: "D"))
            try await context.save()
            let labels = try await store.repository(Tag.self).fetch().map { "\($0.id)=\($0.label)" }
            try expectEqual(Set(labels), ["a=A2", "b=Z", "c=C", "d=D"])
        },
    ]
}
