import Foundation

/// One way a file gets damaged: the classes a disk, a copy or a crash of the machine produce.
public enum DamageKind: String, CaseIterable, Sendable {
    /// One to four bytes changed in place (a bad sector, a bit flip).
    case flippedBytes
    /// The file cut short anywhere (a full disk, a copy that stopped).
    case truncation
    /// One page of zeros where data was (a lost write of a whole block).
    case zeroedPage
    /// Random bytes after the end (a write that ran past, a concatenation).
    case appendedGarbage

    /// Damages the file at `path`; returns what was done, for a failure message.
    @discardableResult
    public func apply(to path: String, pageSize: Int, random: inout SeededRandom) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var what: String
        switch self {
        case .flippedBytes:
            guard !bytes.isEmpty else { return "nothing to flip in an empty file" }
            var offsets: [Int] = []
            for _ in 0..<random.int(1...4) {
                let offset = random.below(bytes.count)
                bytes[offset] ^= UInt8(random.int(1...255))
                offsets.append(offset)
            }
            what = "flipped bytes at \(offsets)"
        case .truncation:
            let length = random.below(bytes.count)
            what = "cut to \(length) of \(bytes.count) bytes"
            bytes.removeSubrange(length...)
        case .zeroedPage:
            let pages = max(1, (bytes.count + pageSize - 1) / pageSize)
            let page = random.below(pages)
            let range = (page * pageSize)..<min(bytes.count, (page + 1) * pageSize)
            for index in range { bytes[index] = 0 }
            what = "zeroed page \(page) (bytes \(range))"
        case .appendedGarbage:
            let count = random.int(1...8_192)
            bytes += (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            what = "appended \(count) random bytes"
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return what
    }
}
