/// Turns a key path written against a model into the stored property name it denotes
/// (`\Person.address.city` → `address.city`).
///
/// Uses the standard library's key-path description (SE-0369). Declarations reject optional
/// chaining (a composite attribute is a non-optional struct whose fields may be optional); queries
/// read through it (`\Person.profile?.city` is `profile.city`, a field of an optional document).
/// Force-unwraps and subscripts are rejected.
enum KeyPathName {
    static func resolve<Root>(_ keyPath: PartialKeyPath<Root>, readingThroughOptionals: Bool = false)
        -> Result<String, StrataError>
    {
        let text = keyPath.debugDescription
        let prefix = "\\" + String(describing: Root.self) + "."
        guard text.hasPrefix(prefix) else {
            return .failure(
                StrataError(
                    .invalidSchema, entity: String(describing: Root.self),
                    "cannot name the key path \(text); pass name: explicitly"))
        }
        // In a query, optional chaining names the same path (`profile?.city` is `profile.city`):
        // how a field of an optional document attribute is named. Declarations refuse it.
        var name = String(text.dropFirst(prefix.count))
        if readingThroughOptionals { name.removeAll { $0 == "?" } }
        guard !name.isEmpty, !name.contains("?"), !name.contains("!"), !name.contains("["), !name.contains("<") else {
            return .failure(
                StrataError(
                    .invalidSchema, entity: String(describing: Root.self),
                    "key path \(text) is not a stored property path "
                        + "(optional chaining in a declaration, and subscripts, are not supported)"
                ))
        }
        return .success(name)
    }
}
