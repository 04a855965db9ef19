/// How a persistent backend checks, at open, that a store holds the shape of the app's schema —
/// before it changes anything for that schema (the engine checks again, through metadata, after
/// every open).
public enum StoredSchema {
    /// Compares the description a store holds with `schema`. A difference is
    /// ``StrataError/Code/incompatibleStore`` naming every change; a store of format 1 that holds no
    /// description (every one records it at creation) is ``StrataError/Code/incompatibleStore`` too.
    /// The store is left untouched.
    public static func check(description: [UInt8]?, schema: Schema, path: String) throws {
        let stored = try attached(description: description, path: path)
        let current = SchemaDescription(schema)
        // The shape only: which version a store of the same shape may open as is the engine's
        // decision (it compares versions when the app's migration plan names them).
        if stored.sameShape(as: current) { return }
        throw mismatch(stored: stored, current: current, path: path)
    }
}

extension StoredSchema {
    /// What a backend's attach reports for a store it found (see ``BackendDescriptor``): the
    /// description it holds, decoded. A store of format 1 without one is
    /// ``StrataError/Code/incompatibleStore``; bytes that do not decode are
    /// ``StrataError/Code/corruptStore``.
    public static func attached(description: [UInt8]?, path: String) throws -> SchemaDescription {
        guard let description else {
            throw StrataError(
                .incompatibleStore,
                "\(path) holds no schema description, which every store of format 1 records when it is created")
        }
        return try SchemaDescription.decode(description, path: path)
    }

    /// The error for a store holding `stored` opened with `current`: ``StrataError/Code/incompatibleStore``
    /// naming every difference (entity and property of the first on the error), with a
    /// ``StoredSchemaMismatch`` as its cause so `Store.open(_:schema:options:)`
    /// can migrate the store.
    public static func mismatch(stored: SchemaDescription, current: SchemaDescription, path: String) -> StrataError {
        let changes = current.differences(from: stored)
        var text = "\(path) was written with another schema"
        if stored.version != current.version, let wanted = current.version {
            text += " (version \(stored.version ?? "unnamed"); the app's is \(wanted))"
        }
        text +=
            changes.isEmpty
            ? ". The shapes are equal."
            : ". The app's schema differs: \(changes.map(\.description).joined(separator: "; "))."
        text += " Open it with a migration plan (OpenOptions(migrations:)) to migrate it."
        return StrataError(
            .incompatibleStore, entity: changes.first?.entity, property: changes.first?.property,
            underlying: StoredSchemaMismatch(stored: stored), text)
    }
}

/// The cause of an ``StrataError/Code/incompatibleStore`` for a store holding another shape: what
/// it holds, so a migration can start from it.
public struct StoredSchemaMismatch: Error, Sendable, CustomStringConvertible {
    /// The description the store holds.
    public var stored: SchemaDescription

    /// The error for a store whose stored shape is `stored`.
    public init(stored: SchemaDescription) { self.stored = stored }

    public var description: String { "the store holds schema version \(stored.version ?? "unnamed")" }
}
