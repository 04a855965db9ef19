import SwiftDiagnostics

/// What `@Model` refuses at compile time, each naming the property and what to do.
struct ModelDiagnostic: DiagnosticMessage, Error {
    let message: String
    let id: String

    var diagnosticID: MessageID { MessageID(domain: "StrataMacros", id: id) }
    var severity: DiagnosticSeverity { .error }

    static let notAStruct = ModelDiagnostic(
        message: "@Model declares a struct (models are Sendable values); use it on a struct", id: "notAStruct")
    static let noID = ModelDiagnostic(
        message: "a @Model needs a stored `id` (a UUID, a String or an Int64), e.g. `var id = UUID()`", id: "noID")

    static func unsupportedType(_ property: String, _ type: String) -> ModelDiagnostic {
        ModelDiagnostic(
            message:
                "Strata cannot store `\(property)` of type \(type): declare a relationship, a CompositeAttribute, "
                + "or mark it @Transient",
            id: "unsupportedType")
    }

    static func transientWithoutValue(_ property: String) -> ModelDiagnostic {
        ModelDiagnostic(
            message: "@Transient `\(property)` needs an initial value: it is not stored, so nothing else sets it",
            id: "transientWithoutValue")
    }

    static func unknownDestination(_ property: String) -> ModelDiagnostic {
        ModelDiagnostic(
            message:
                "the destination of to-one `\(property)` cannot be read from its type: declare it as "
                + "`Destination.ID?` or name it with `@Relationship(to: Destination.self, …)`",
            id: "unknownDestination")
    }

    static func toManyNotToMany(_ property: String) -> ModelDiagnostic {
        ModelDiagnostic(
            message:
                "a static @Relationship declares a to-many: give `\(property)` the type `ToMany<Self, Destination>`",
            id: "toManyNotToMany")
    }

    static func letWithValue(_ property: String) -> ModelDiagnostic {
        ModelDiagnostic(
            message:
                "`let \(property)` with an initial value is never decoded, so it cannot be stored: make it `var`, "
                + "or mark it @Transient",
            id: "letWithValue")
    }

    static func untyped(_ property: String) -> ModelDiagnostic {
        ModelDiagnostic(
            message:
                "give `\(property)` a type annotation (its initial value is not a literal the type can be read from)",
            id: "untyped")
    }
}
