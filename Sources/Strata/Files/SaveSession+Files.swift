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
                described = (name, schema.entity(name)?.attributes.filter { $0.type == .file }.map(\.name) ?? [])
            }
            guard let properties = described?.slots, !properties.isEmpty else { continue }
            for property in properties {
                let old = entry.original.flatMap { Self.digest($0[property]) }
                let new = entry.current.flatMap { Self.digest($0[property]) }
                guard old != new else { continue }
                if let old { deltas[old, default: 0] -= 1 }
                if let new { deltas[new, default: 0] += 1 }
            }
        }
        try FileSpace.adjustReferences(deltas, in: base)
    }

    private static func digest(_ value: Value?) -> FileReference? {
        guard case .string(let text)? = value else { return nil }
        return FileReference(text: text)
    }
}

extension EntityDescription {
    /// Whether any attribute is a file.
    var holdsFiles: Bool { attributes.contains { $0.type == .file } }
}
