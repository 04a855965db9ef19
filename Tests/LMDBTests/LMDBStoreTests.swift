import CLMDB
import Foundation
import Strata
import StrataConformance
import Synchronization
import Testing

@testable import StrataLMDB

private typealias Tag = StrataConformance.Tag

func withTemporaryDirectory(_ body: (String) async throws -> Void) async throws {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("strata-lmdb-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try await body(path)
}

func expectOpenFails(
    _ code: StrataError.Code, at path: String, schema: Schema? = nil, watching file: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let before = file.flatMap { FileManager.default.contents(atPath: $0) }
    do {
        _ = try await LMDBBackend.open(path: path, schema: try schema ?? TravelDomain.schema())
        Issue.record("expected \(code), the store opened", sourceLocation: sourceLocation)
    } catch let error as StrataError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
    if let file {
        #expect(
            FileManager.default.contents(atPath: file) == before, "the data file must not change",
            sourceLocation: sourceLocation)
    }
}

@Suite("LMDB: files and growth")
struct LMDBStoreTests {
    @Test func theMapGrowsFromATinyInitialSize() async throws {
        try await withTemporaryDirectory { path in
            let backend = try await LMDBBackend.open(
                path: path, schema: try TravelDomain.schema(), options: .init(initialMapSize: 64 << 10))
            let initial = backend.mapSize
            let store = Store(backend: backend)
            for batch in 0..<5 {
                try await store.repository(Person.self).insert(
                    contentsOf: (0..<1_000).map { Person(name: "P\(batch)-\($0)", age: $0 % 100) })
            }
            #expect(try await store.repository(Person.self).count() == 5_000)
            #expect(backend.mapSize > initial, "map grew from \(initial) to \(backend.mapSize)")
            try await store.close()
            let reopened = Store(
                backend: try await LMDBBackend.open(
                    path: path, schema: try TravelDomain.schema(), options: .init(initialMapSize: 64 << 10)))
            #expect(try await reopened.repository(Person.self).count(where: \.age == 7) == 50)
        }
    }

    @Test func aFileInsteadOfADirectory() async throws {
        try await withTemporaryDirectory { path in
            try Data("not a directory".utf8).write(to: URL(fileURLWithPath: path))
            try await expectOpenFails(.notAStore, at: path, watching: path)
        }
    }

    @Test func aDataFileThatIsNotLMDB() async throws {
        try await withTemporaryDirectory { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let data = path + "/data.mdb"
            try Data(repeating: 0x5A, count: 16_384).write(to: URL(fileURLWithPath: data))
            try await expectOpenFails(.notAStore, at: path, watching: data)
        }
    }

    @Test func corruptMetaPages() async throws {
        try await withTemporaryDirectory { path in
            let backend = try await LMDBBackend.open(path: path, schema: try TravelDomain.schema())
            try await Store(backend: backend).repository(Tag.self).insert(Tag(id: "x", label: "X"))
            try await backend.close()
            let data = path + "/data.mdb"
            var bytes = try #require(FileManager.default.contents(atPath: data))
            for index in 0..<min(bytes.count, 8_192) where index % 7 == 0 { bytes[index] ^= 0xFF }
            try bytes.write(to: URL(fileURLWithPath: data))
            try await expectOpenFails(.notAStore, at: path, watching: data)
        }
    }

    @Test func anotherApplicationsEnvironment() async throws {
        try await withTemporaryDirectory { path in
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let environment = try LMDBEnvironment(path: path, mapSize: 1 << 20, maxDatabases: 4, noSync: false)
            try environment.openDatabases([("invoices", false)], create: true)
            try await expectOpenFails(.notAStore, at: path, watching: path + "/data.mdb")
        }
    }

    @Test func aStoreWrittenWithAnotherSchema() async throws {
        try await withTemporaryDirectory { path in
            let store = Store(backend: try await LMDBBackend.open(path: path, schema: try TravelDomain.schema()))
            try await store.repository(Tag.self).insert(Tag(id: "kept", label: "Kept"))
            try await store.close()
            let other = try Schema(entities: [
                EntityDescription(
                    name: "Tag", idKind: .string, attributes: [AttributeDescription(name: "title", type: .string)])
            ])
            try await expectOpenFails(.incompatibleStore, at: path, schema: other, watching: path + "/data.mdb")
        }
    }

    /// Format 1 is the only format: a store of another, or one without the schema description
    /// every store of format 1 records at creation, is refused naming what it found, untouched.
    @Test func aStoreOfAnotherFormatOrWithoutADescriptionIsRefused() async throws {
        try await withTemporaryDirectory { path in
            let backend = try await LMDBBackend.open(path: path, schema: try TravelDomain.schema())
            try backend.writeRaw { try $0.setMetadata(MetadataKeys.lmdbFormat, Array("2".utf8)) }
            try await backend.close()
            try await expectOpenFails(.incompatibleStore, at: path, watching: path + "/data.mdb")
            do {
                _ = try await LMDBBackend.open(path: path, schema: try TravelDomain.schema())
            } catch let error as StrataError {
                #expect(error.message.contains("format 2"), "\(error)")
            }
        }
        try await withTemporaryDirectory { path in
            let backend = try await LMDBBackend.open(path: path, schema: try TravelDomain.schema())
            try backend.writeRaw { try $0.setMetadata(SchemaDescription.metadataKey, nil) }
            try await backend.close()
            try await expectOpenFails(.incompatibleStore, at: path, watching: path + "/data.mdb")
        }
    }

    @Test func aLocationThatCannotBeWritten() async throws {
        try await expectOpenFails(.storageFailure, at: "/proc/strata-\(UUID().uuidString)")
    }

    @Test func aReaderKeepsItsSnapshotAcrossManyWrites() async throws {
        try await withTemporaryDirectory { path in
            let backend = try await LMDBBackend.open(path: path, schema: try TravelDomain.schema())
            let store = Store(backend: backend)
            try await store.repository(Tag.self).insert(Tag(id: "first", label: "First"))
            // The reader blocks a thread of its own, not one of the cooperative pool's two, which
            // the writes (and the rest of the test run) need.
            let writesDone = DispatchSemaphore(value: 0)
            let result = Mutex<Result<(Int, Int), any Error>?>(nil)
            let finished = DispatchSemaphore(value: 0)
            await withCheckedContinuation { (ready: CheckedContinuation<Void, Never>) in
                Thread {
                    result.withLock {
                        $0 = Result {
                            try backend.readRaw { tx in
                                let before = try tx.count(FetchPlan(entity: "Tag"))
                                ready.resume()
                                writesDone.wait()
                                return (before, try tx.count(FetchPlan(entity: "Tag")))
                            }
                        }
                    }
                    finished.signal()
                }.start()
            }
            for index in 0..<200 {
                try await store.repository(Tag.self).insert(Tag(id: "t\(index)", label: "T\(index)"))
            }
            writesDone.signal()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    finished.wait()
                    done.resume()
                }
            }
            let (before, after) = try #require(result.withLock { $0 }).get()
            #expect(before == 1 && after == 1, "the open reader still sees its snapshot")
            #expect(try await store.repository(Tag.self).count() == 201)
        }
    }
}
