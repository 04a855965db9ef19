/// The keys each object of a schema file may hold: any other is refused, naming it and the nearest
/// valid key (`"default"` → did you mean `"defaultValue"`?), so a misspelt key is never silently
/// ignored.
extension SchemaFile.Reader {
    static let rootKeys: Set<String> = ["strata", "format", "version", "entities"]
    static let entityKeys: Set<String> = [
        "name", "idKind", "attributes", "relationships", "indexes", "uniqueConstraints", "recordChecks", "renamedFrom",
        "searchIndexes",
    ]
    static let searchIndexKeys: Set<String> = ["name", "fields"]
    static let searchFieldKeys: Set<String> = ["attribute", "weight"]
    static let attributeKeys: Set<String> = [
        "name", "type", "isOptional", "isIndexed", "defaultValue", "allowedValues", "rules", "customRules",
        "renamedFrom", "element", "derived",
    ]
    static let relationshipKeys: Set<String> = [
        "name", "destination", "inverse", "cardinality", "isOrdered", "deleteRule", "isRequired", "minCount",
        "maxCount",
        "renamedFrom",
    ]
    static let ruleKeys: Set<String> = ["kind", "min", "max", "pattern", "name"]

    /// Throws `invalidSchema` for the first key of `json` (in sorted order) not in `allowed`.
    func refuseUnknownKeys(
        _ json: [String: Any], _ allowed: Set<String>, _ entity: String?, _ property: String?, in place: String
    ) throws {
        guard let unknown = json.keys.sorted().first(where: { !allowed.contains($0) }) else { return }
        let suggestion = Self.nearest(unknown, in: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
        throw fail(
            entity, property,
            "has an unknown key \"\(unknown)\" in \(place)\(suggestion); "
                + "expected one of \(allowed.sorted().map { "\"\($0)\"" }.joined(separator: ", "))")
    }

    /// The valid key closest to `key`: one it begins or ends, or within a third of its length in edits.
    static func nearest(_ key: String, in allowed: Set<String>) -> String? {
        let lowered = key.lowercased()
        let candidates = allowed.sorted()
        if let affix = candidates.first(where: {
            $0.lowercased().hasPrefix(lowered) || $0.lowercased().hasSuffix(lowered)
                || lowered.hasPrefix($0.lowercased())
        }) {
            return affix
        }
        let scored = candidates.map { ($0, distance(lowered, $0.lowercased())) }.min { $0.1 < $1.1 }
        guard let (best, edits) = scored, edits <= max(1, key.count / 3) else { return nil }
        return best
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let substitution = previous + (a[i - 1] == b[j - 1] ? 0 : 1)
                previous = row[j]
                row[j] = min(substitution, row[j] + 1, row[j - 1] + 1)
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}
