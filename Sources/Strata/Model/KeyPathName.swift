/// Turns a key path written against a model into the stored property name it denotes
/// (`\Person.address.city` → `address.city`).
///
/// Uses the standard library's key-path description (SE-0369). Optional chaining is rejected: a
/// composite attribute is a non-optional struct whose fields may be optional.
enum KeyPathName {
    static func resolve<Root>(_ keyPath: PartialKeyPath<Root>) -> Result<String, StrataError> {
        let text = keyPath.debugDescription
        let prefix = "\\" + String(describing: Root.self) + "."
        guard text.hasPrefix(prefix) else {
            return .failure(
                StrataError(
                    .invalidSchema, entity: String(describing: Root.self),
                    "cannot name the key path \(text); pass name: explicitly"))
        }
        let name = String(text.dropFirst(prefix.count))
        guard !name.isEmpty, !name.contains("?"), !name.contains("!"), !name.contains("["), !name.contains("<") else {
            return .failure(
                StrataError(
                    .invalidSchema, entity: String(describing: Root.self),
                    "key path \(text) is not a stored property path (optional chaining and subscripts are not supported)"
                ))
        }
        return .success(name)
    }
}
