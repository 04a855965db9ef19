import Foundation

/// Dates the engine keeps: declared like an attribute, stamped at every save (see `AutomaticTimestamp`).
extension EntityMember where Model: PersistentModel {
    /// A date the engine keeps (see `AutomaticTimestamp`): every save stamps it with the save's
    /// time — `.creation` when the record is inserted, `.modification` then and whenever a save
    /// changes the record. The model's own value is ignored on those saves; fetch the model again
    /// to read the stamp.
    ///
    /// ```swift
    /// .timestamp(\.created, .creation), .timestamp(\.updated, .modification, indexed: true)
    /// ```
    public static func timestamp(
        _ keyPath: any KeyPath<Model, Date> & Sendable, _ kind: AutomaticTimestamp, name: String? = nil,
        indexed: Bool = false
    ) -> EntityMember {
        attribute(keyPath, name: name, indexed: indexed).stamped(kind)
    }

    /// An optional date the engine keeps, as the non-optional form does; never nil once saved.
    public static func timestamp(
        _ keyPath: any KeyPath<Model, Date?> & Sendable, _ kind: AutomaticTimestamp, name: String? = nil,
        indexed: Bool = false
    ) -> EntityMember {
        attribute(keyPath, name: name, indexed: indexed).stamped(kind)
    }

    private func stamped(_ kind: AutomaticTimestamp) -> EntityMember {
        mappingAttributes { $0.timestamp = kind }
    }
}

extension EntityMember {
    /// The member with `change` applied to each attribute it declares (none for other members).
    func mappingAttributes(_ change: (inout AttributeDescription) -> Void) -> EntityMember {
        var member = self
        if case .attributes(let result) = member.part {
            member.part = .attributes(
                result.map { attributes in
                    attributes.map { attribute in
                        var changed = attribute
                        change(&changed)
                        return changed
                    }
                })
        }
        return member
    }
}
