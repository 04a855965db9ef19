import Foundation
import Strata
import StrataConformance
import StrataPostgres

// The other process of the PostgreSQL backend's two-writer test: `URL NAME COUNT` makes COUNT
// one-record saves of tags NAME-0…, then tries to claim 50 labels the other process claims too
// (exactly one of the two may get each); exits non-zero on any unexpected error.
let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: PostgresWriterChild URL NAME COUNT\n".utf8))
    exit(2)
}
do {
    let store = Store(backend: try await PostgresBackend.open(url: arguments[1], schema: try TravelDomain.schema()))
    let tags = store.repository(Tag.self)
    for index in 0..<count {
        try await tags.insert(Tag(id: "\(arguments[2])-\(index)", label: "\(arguments[2])-\(index)"))
    }
    for index in 0..<50 {
        do {
            try await tags.insert(Tag(id: "\(arguments[2])-shared-\(index)", label: "shared-\(index)"))
        } catch let error as StrataError where error.code == .uniqueViolation {
            continue
        }
    }
    try await store.close()
    exit(0)
} catch {
    FileHandle.standardError.write(Data("PostgresWriterChild: \(error)\n".utf8))
    exit(1)
}
