import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Attribute`, `@Timestamp`, `@Derived` and `@Transient`: markers `@Model` reads; they add nothing themselves.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}

/// `@_ToManyName`, which `@Model` puts on a `static var tags: ToMany<Trip, Tag>` without a value:
/// its getter, `ToMany("tags")`.
public struct ToManyNameMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            let name = variable.bindings.first?.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return [] }
        return ["get { ToMany(\(literal: name)) }"]
    }
}

extension VariableDeclSyntax {
    var isStatic: Bool { modifiers.contains { $0.name.tokenKind == .keyword(.static) } }
    var isLet: Bool { bindingSpecifier.tokenKind == .keyword(.let) }

    /// The attribute named `name` (`@Attribute`, `@Relationship`, …), if present.
    func attribute(_ name: String) -> AttributeSyntax? {
        for element in attributes {
            guard case .attribute(let attribute) = element else { continue }
            let type = attribute.attributeName.trimmedDescription
            if type == name || type.hasSuffix(".\(name)") { return attribute }
        }
        return nil
    }
}
