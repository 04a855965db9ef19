// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Strata.docc/Files.md's sample, verbatim.
import Foundation
import Strata

struct Postcard: PersistentModel {
    var id: String
    var caption = ""
    var photo: FileReference
    var scan: FileReference?

    static let entity = Entity<Postcard>("Postcard", [
        .attribute(\.caption), .attribute(\.photo, indexed: true), .attribute(\.scan),
    ])
}

func keep(_ picture: URL, as id: String, in store: Store) async throws {
    let photo = try await store.files.write(contentsOf: picture)  // streamed, 256 KiB at a time
    try await store.repository(Postcard.self).insert(Postcard(id: id, photo: photo))
}

func send(_ card: Postcard, from store: Store, to sink: (Data) async throws -> Void) async throws {
    for try await chunk in store.files.contents(of: card.photo) {
        try await sink(chunk)  // 256 KiB at a time; the digest is checked at the end
    }
}
