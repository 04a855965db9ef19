import Foundation
import Strata

// Files' domain: postcards with a photo (required) and a back (optional) stored as files, in albums
// whose delete cascades to their postcards (so a cascade must free the bytes too).

/// An album: deleting one deletes its postcards.
struct Album: PersistentModel, Equatable {
    var id: String
    var title: String

    static let postcards = ToMany<Album, Postcard>("postcards")

    static let entity = Entity<Album>(
        "Album", [.attribute(\.title), .toMany(postcards, inverse: \Postcard.album, deleteRule: .cascade)])
}

/// A postcard: two files and a caption.
struct Postcard: PersistentModel, Equatable {
    var id: String
    var caption: String = ""
    var photo: FileReference
    var back: FileReference?
    var album: Album.ID?
    /// Whose postcard it is (a sync server's scope).
    var owner = ""

    static let entity = Entity<Postcard>(
        "Postcard",
        [
            .attribute(\.caption), .attribute(\.photo, indexed: true), .attribute(\.back), .attribute(\.owner),
            .toOne(\.album, Album.self, inverse: Album.postcards),
        ])
}

enum PostcardDomain {
    static func schema() throws -> Schema { try Schema(Album.self, Postcard.self) }

    /// `count` bytes of a pattern that differs per `seed` and never repeats within a chunk.
    static func bytes(_ count: Int, seed: UInt32 = 1) -> Data {
        var state = seed &* 2_654_435_761 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }

    /// `data` as pieces of `size` bytes (the last one shorter), as a network or a file would hand them over.
    static func pieces(_ data: Data, of size: Int) -> AsyncStream<Data> {
        AsyncStream { continuation in
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + size)
                continuation.yield(data.subdata(in: offset..<end))
                offset = end
            }
            continuation.finish()
        }
    }
}
