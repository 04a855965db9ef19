import Foundation

/// File reference counts, kept by every save: one count per digest of the record properties that
/// refer to it, so the bytes go when the last referring record does (a cascade included).
extension SaveSession {
    /// Adds what the save's staged records refer to and takes away what they referred to; a file
    /// left with no reference is freed in this transaction.
    func updateFileReferences(_ base: any StorageWriteTransaction) throws {
        guard schema.entities.contains(where: \.holdsFiles) else { return }
        var deltas: [FileReference: Int64] = [:]
        var described: (name: String, slots: [String])?
        for entry in workingSet.staged where entry.original != nil || entry.current != nil {
            let name = entry.key.entity
            if described?.name != name {
                described = (name, schema.entity(name)?.fileAttributes.map(\.name) ?? [])
            }
            guard let properties = described?.slots, !properties.isEmpty else { continue }
            for property in properties {
                let old = entry.original.flatMap { FileReference($0[property]) }
                let new = entry.current.flatMap { FileReference($0[property]) }
                guard old != new else { continue }
                if let old { deltas[old, default: 0] -= 1 }
                if let new { deltas[new, default: 0] += 1 }
            }
        }
        try FileSpace.adjustReferences(deltas, in: base)
    }
}

extension EntityDescription {
    /// The attributes that hold files.
    package var fileAttributes: [AttributeDescription] { attributes.filter { $0.type == .file } }
    /// Whether any attribute is a file.
    package var holdsFiles: Bool { attributes.contains { $0.type == .file } }
}

extension FileReference {
    /// The reference a stored value holds, or nil (null, or not a reference).
    package init?(_ value: Value?) {
        guard case .string(let text)? = value else { return nil }
        self.init(text: text)
    }
}
