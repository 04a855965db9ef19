import Foundation

/// A stored file's bytes as an asynchronous sequence of chunks (``FileStorage/contents(of:from:)``),
/// each read in its own transaction: memory holds one chunk at a time.
public struct FileContents: AsyncSequence, Sendable {
    public typealias Element = Data

    let store: Store
    let file: FileReference
    let offset: Int64

    public func makeAsyncIterator() -> Iterator {
        Iterator(store: store, file: file, offset: Swift.max(0, offset))
    }

    /// Reads the chunks in order, checking each one's length and, when read from the start, the
    /// digest of the whole.
    public struct Iterator: AsyncIteratorProtocol {
        let store: Store
        let file: FileReference
        let offset: Int64
        private var manifest: FileSpace.Manifest?
        private var index = 0
        private var hasher: SHA256?
        private var done = false

        init(store: Store, file: FileReference, offset: Int64) {
            self.store = store
            self.file = file
            self.offset = offset
            self.hasher = offset == 0 ? SHA256() : nil
        }

        public mutating func next() async throws -> Data? {
            guard !done else { return nil }
            let digest = file.digest
            if manifest == nil {
                guard let found = try await store.backend.read({ try FileSpace.manifest(digest, in: $0) }) else {
                    throw StrataError(
                        .fileUnavailable,
                        "the bytes of \(file) are not in this store (not written or downloaded "
                            + "here, or freed with the last record referring to them)")
                }
                guard offset <= file.size else {
                    throw StrataError(.validationFailed, "\(file) has \(file.size) bytes; cannot read from \(offset)")
                }
                guard found.size == file.size else {
                    throw FileSpace.damaged("its manifest says \(found.size) bytes, the reference \(file.size)", digest)
                }
                manifest = found
                index = Int(offset / Int64(FileSpace.chunkSize))
            }
            guard let manifest else { return nil }
            guard index < manifest.chunks else {
                done = true
                if let hasher, hasher.finish() != digest {
                    throw FileSpace.damaged("its bytes no longer have its digest", digest)
                }
                return nil
            }
            let current = index
            let bytes = try await store.backend.read { transaction -> [UInt8] in
                guard try FileSpace.manifest(digest, in: transaction) == manifest else {
                    throw StrataError(.fileUnavailable, "\(digest): the file was freed while it was read")
                }
                return try FileSpace.chunk(current, of: manifest, digest: digest, in: transaction)
            }
            hasher?.update(bytes)
            index += 1
            let skip =
                current == Int(offset / Int64(FileSpace.chunkSize)) ? Int(offset % Int64(FileSpace.chunkSize)) : 0
            return Data(bytes[Swift.min(skip, bytes.count)...])
        }
    }
}
