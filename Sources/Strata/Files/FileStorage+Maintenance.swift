import Foundation

extension FileStorage {
    /// What ``FileStorage/collectGarbage(unreferencedFor:)`` removed.
    public struct Collected: Sendable, Equatable {
        /// Files no record referred to, written longer ago than the grace period.
        public var files = 0
        /// Unfinished uploads that received nothing for longer than the grace period.
        public var uploads = 0
        /// Bytes freed by both.
        public var bytes: Int64 = 0

        /// What a collection removed.
        public init(files: Int = 0, uploads: Int = 0, bytes: Int64 = 0) {
            self.files = files
            self.uploads = uploads
            self.bytes = bytes
        }
    }

    /// Removes files no record refers to that were written more than `grace` ago, and unfinished
    /// uploads that received nothing for that long. A file is written before the record referring
    /// to it is saved; the grace period is that gap's allowance (a day by default). Files referred
    /// to are never removed here: they go with their last record.
    @discardableResult
    public func collectGarbage(unreferencedFor grace: Duration = .seconds(86_400)) async throws -> Collected {
        try await collectGarbage(unreferencedFor: grace, unfinishedFor: grace)
    }

    /// Removes files no record refers to that were written more than `unreferencedFor` ago, and
    /// unfinished uploads that received nothing for `unfinishedFor`.
    @discardableResult
    public func collectGarbage(unreferencedFor: Duration, unfinishedFor: Duration) async throws -> Collected {
        let now = Date().timeIntervalSinceReferenceDate
        let (files, uploads) = (now - Self.seconds(unreferencedFor), now - Self.seconds(unfinishedFor))
        return try await store.writeMetadata { transaction in
            var collected = Collected()
            for (key, _) in try transaction.metadata(prefix: MetadataKeys.fileManifestPrefix, after: nil, limit: nil) {
                let digest = String(key.dropFirst(MetadataKeys.fileManifestPrefix.count))
                guard let manifest = try FileSpace.manifest(digest, in: transaction), manifest.created < files,
                    try FileSpace.references(digest, in: transaction) == 0
                else { continue }
                try FileSpace.free(digest, in: transaction)
                collected.files += 1
                collected.bytes += manifest.size
            }
            for (key, _) in try transaction.metadata(prefix: MetadataKeys.fileUploadPrefix, after: nil, limit: nil) {
                let blob = String(key.dropFirst(MetadataKeys.fileUploadPrefix.count))
                guard let upload = try FileSpace.upload(blob, in: transaction), upload.updated < uploads else {
                    continue
                }
                try FileSpace.cancel(blob, in: transaction)
                collected.uploads += 1
                collected.bytes += upload.received
            }
            return collected
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Every problem with the store's files, without changing anything: a file a record refers to
    /// whose bytes are not here (`StrataError.Code.fileUnavailable`, naming the record and
    /// property), a missing, short or damaged chunk or a digest that no longer matches
    /// (`StrataError.Code.corruptStore`), and a reference count that disagrees with the records.
    /// Reads every record with a file attribute page by page and every stored byte chunk by chunk.
    public func verify(limit: Int = 1_000) async throws -> [StrataError] {
        var findings = try await countsAgainstRecords(limit: limit)
        let digests = try await store.backend.read { transaction in
            try transaction.metadata(prefix: MetadataKeys.fileManifestPrefix, after: nil, limit: nil).map {
                String($0.key.dropFirst(MetadataKeys.fileManifestPrefix.count))
            }
        }
        for digest in digests where findings.count < limit {
            do {
                guard let manifest = try await store.backend.read({ try FileSpace.manifest(digest, in: $0) }),
                    let file = FileReference(digest: digest, size: manifest.size)
                else { continue }
                for try await _ in contents(of: file) {}
            } catch let error as StrataError where error.code != .fileUnavailable {
                findings.append(error)
            }
        }
        return Array(findings.prefix(limit))
    }

    /// Files records refer to that are not here, and counts that disagree with the records.
    private func countsAgainstRecords(limit: Int) async throws -> [StrataError] {
        let schema = store.schema
        return try await store.read { reader in
            var counted: [String: Int64] = [:]
            var findings: [StrataError] = []
            for entity in schema.entities where entity.holdsFiles {
                let properties = entity.fileAttributes.map(\.name)
                var after: RecordID?
                while true {
                    let page = try reader.page(entity.name, after: after, limit: 1_000).map(\.record)
                    for record in page {
                        for property in properties {
                            guard let file = FileReference(record[property]) else { continue }
                            counted[file.digest, default: 0] += 1
                            guard findings.count < limit,
                                try FileSpace.manifest(file.digest, in: reader.transaction) == nil
                            else { continue }
                            findings.append(
                                StrataError(
                                    .fileUnavailable, entity: entity.name, recordID: record.id, property: property,
                                    "refers to \(file), whose bytes are not in this store"))
                        }
                    }
                    guard page.count == 1_000, let last = page.last else { break }
                    after = last.id
                }
            }
            let stored = try reader.transaction.metadata(
                prefix: MetadataKeys.fileReferencesPrefix, after: nil, limit: nil)
            var kept: [String: Int64] = [:]
            for (key, _) in stored {
                let digest = String(key.dropFirst(MetadataKeys.fileReferencesPrefix.count))
                kept[digest] = try FileSpace.references(digest, in: reader.transaction)
            }
            for digest in Set(kept.keys).union(counted.keys).sorted() where kept[digest] != counted[digest] {
                findings.append(
                    StrataError(
                        .corruptStore,
                        "file sha256:\(digest): its reference count is \(kept[digest] ?? 0), "
                            + "but \(counted[digest] ?? 0) record properties refer to it"))
            }
            return findings
        }
    }
}
