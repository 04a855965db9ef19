// swift-format-ignore-file
// (README and DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// The README's code samples, verbatim (ReadmeSampleTests checks every ```swift block of README.md
// appears in one of these files, so the two cannot drift). Edit both together.
import Foundation
import Strata
import StrataConformance
import Testing

let suite = ConformanceSuite(backend: BackendUnderTest(name: "MyBackend") { schema in
    MyBackend.register()                                                               // its URL scheme, mine:
    return try await Store.open("mine:\(NSTemporaryDirectory())/\(UUID())", schema: schema)   // a fresh store per check
} reopen: { store in                                                                   // optional: enables reopen checks
    try await store.close()
    guard let location = store.location else { throw StrataError(.unsupportedStore, "no location") }
    return try await Store.open(location.description, schema: store.schema)
} dispose: { store in
    guard let path = store.location?.path else { return }
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }  // its files
})

@Test(arguments: ConformanceSuite.checks)
func conformance(_ check: ConformanceCheck) async throws {
    if case .skipped(let reason) = try await suite.run(check) { try Test.cancel("\(reason)") }
}
