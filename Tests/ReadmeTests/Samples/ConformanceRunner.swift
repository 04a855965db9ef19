// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Foundation
import Strata
import StrataConformance
import Testing

let suite = ConformanceSuite(backend: BackendUnderTest(name: "MyBackend", profiles: [.persistent]) { schema in
    MyBackend.register()                                                               // its URL scheme, mine:
    return try await Store.open("mine:\(NSTemporaryDirectory())/\(UUID())", schema: schema)   // a fresh store per check
} reopen: { store in                                                                   // what .persistent requires
    try await store.close()
    guard let location = store.location else { throw StrataError(.unsupportedStore, "no location") }
    return try await Store.open(location.description, schema: store.schema)
} dispose: { store in
    guard let path = store.location?.path else { return }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }  // its files
})

@Test func conformance() async {
    let report = await suite.runAll(ConformanceSuite.selected)   // STRATA_CHECKS=Queries/ runs a part
    print(report.summary)                     // failures, skips by missing feature, "N passed, N failed, N skipped"
    for (check, failure) in report.failures {
        Issue.record(
            Comment(rawValue: "\(check.id): \(failure.message)"),
            sourceLocation: SourceLocation(fileID: failure.fileID, filePath: failure.filePath, line: failure.line, column: 1))
    }
}
