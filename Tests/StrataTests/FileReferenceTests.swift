import Foundation
import Testing

@testable import StrataStorage

/// The hand-written SHA-256 against FIPS 180-4's published vectors, fed whole, in odd pieces and
/// across a saved and restored state; and the canonical text of a file reference.
@Suite struct FileReferenceTests {
    @Test func sha256MatchesThePublishedVectors() {
        #expect(SHA256.digest([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.digest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(
            SHA256.digest(Array(twoBlocks.utf8)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func sha256FedInPiecesAndResumedFromASavedStateGivesTheSameDigest() throws {
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 3) }
        var pieces = SHA256()
        var offset = 0
        for size in [1, 63, 64, 65, 127, 1_000, 3] where offset < bytes.count {
            pieces.update(bytes[offset..<min(bytes.count, offset + size)])
            offset += size
        }
        pieces.update(bytes[offset...])
        #expect(pieces.finish() == SHA256.digest(bytes))

        var first = SHA256()
        first.update(bytes.prefix(4_096))
        let saved = try #require(first.saved)
        #expect(saved.count == 40)
        var resumed = try #require(SHA256(saved: saved))
        resumed.update(bytes.dropFirst(4_096))
        #expect(resumed.finish() == SHA256.digest(bytes))
        var partial = SHA256()
        partial.update(bytes.prefix(100))
        #expect(partial.saved == nil, "a state is saved at whole blocks only")
        #expect(SHA256(saved: Array(saved.prefix(39))) == nil)
    }

    @Test func aReferenceHasOneCanonicalText() {
        let digest = String(repeating: "0f", count: 32)
        #expect(FileReference(text: "sha256:\(digest):42")?.size == 42)
        #expect(FileReference(text: "sha256:\(digest):0")?.size == 0)
        for bad in [
            "sha256:\(digest):042", "sha256:\(digest):-1", "sha256:\(digest):", "sha256:\(digest.uppercased()):1",
            "sha1:\(digest):1", "sha256:\(digest.dropLast()):1", "sha256:\(digest):1:2", "",
            "sha256:\(digest):99999999999999999999",
        ] {
            #expect(FileReference(text: bad) == nil, "\(bad)")
        }
        #expect(AttributeType.file.accepts(.string("sha256:\(digest):1")))
        #expect(!AttributeType.file.accepts(.string("photo.jpg")))
        #expect(!AttributeType.file.accepts(.data(Data())))
    }
}
