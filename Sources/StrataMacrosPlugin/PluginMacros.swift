import StrataMacrosSupport
import SwiftSyntax
import SwiftSyntaxMacros

// The names `#externalMacro(module: "StrataMacrosPlugin", type: …)` resolves: the compiler asks
// the plugin for `StrataMacrosPlugin.<type>`, so each macro is named in this module and forwards
// to its implementation in `StrataMacrosSupport`.

/// `@Model`.
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        try StrataMacrosSupport.ModelMacro.expansion(
            of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        try StrataMacrosSupport.ModelMacro.expansion(
            of: node, attachedTo: declaration, providingExtensionsOf: type, conformingTo: protocols, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try StrataMacrosSupport.ModelMacro.expansion(
            of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }
}

/// `@Attribute`, `@Relationship`, `@Timestamp`, `@Transient` and the other markers.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try StrataMacrosSupport.MarkerMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// The accessor `@Model` gives a to-many relationship's name.
public struct ToManyNameMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        try StrataMacrosSupport.ToManyNameMacro.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }
}
