import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: writes a struct's `static let entity` from its stored properties and their markers,
/// and its `PersistentModel` conformance (see `StrataMacros`).
public struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    /// `@_ToManyName` on each `static var name: ToMany<…>` declared without a value.
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard let variable = member.as(VariableDeclSyntax.self), variable.isStatic, !variable.isLet,
            variable.bindings.count == 1, let binding = variable.bindings.first, binding.initializer == nil,
            binding.accessorBlock == nil,
            let type = binding.typeAnnotation?.type.trimmedDescription,
            type.hasPrefix("ToMany<") || type.hasPrefix("Strata.ToMany<")
        else { return [] }
        return ["@_ToManyName"]
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(StructDeclSyntax.self), !protocols.isEmpty else { return [] }
        let list = protocols.map(\.trimmedDescription).joined(separator: ", ")
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: list) {}")]
    }

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let model = declaration.as(StructDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: ModelDiagnostic.notAStruct))
            return []
        }
        var reader = ModelReader(context: context)
        reader.read(model.memberBlock)
        if !reader.hasID {
            context.diagnose(Diagnostic(node: model.name, message: ModelDiagnostic.noID))
        }
        let arguments = ModelArguments(node)
        let typeName = model.name.trimmed.text
        let access =
            model.modifiers.first {
                [.keyword(.public), .keyword(.package)].contains($0.name.tokenKind)
            }.map { "\($0.name.text) " } ?? ""
        var header = [arguments.name ?? "\"\(typeName)\""]
        if let renamed = arguments.renamedFrom { header.append("renamedFrom: \(renamed)") }
        let members = reader.members.map { "        \($0)," }.joined(separator: "\n")
        let extra = reader.hasConstraints ? " + constraints" : ""
        var declarations: [DeclSyntax] = [
            """
            \(raw: access)static let entity = Entity<\(raw: typeName)>(
                \(raw: header.joined(separator: ", ")),
                [
            \(raw: members)
                ]\(raw: extra))
            """
        ]
        let declaresCodingKeys = model.memberBlock.members.contains {
            $0.decl.as(EnumDeclSyntax.self)?.name.text == "CodingKeys"
        }
        if reader.hasTransient && !declaresCodingKeys {
            let cases = reader.codedNames.joined(separator: ", ")
            declarations.append("enum CodingKeys: String, CodingKey { case \(raw: cases) }")
        }
        return declarations
    }
}

/// `@Model("Name", renamedFrom: "Old")`'s arguments, as written.
struct ModelArguments {
    var name: String?
    var renamedFrom: String?

    init(_ node: AttributeSyntax) {
        guard let list = node.arguments?.as(LabeledExprListSyntax.self) else { return }
        for argument in list {
            let label = argument.label?.text
            let text = argument.expression.trimmedDescription
            if label == "renamedFrom" {
                renamedFrom = text
            } else if label == nil, text != "nil" {
                name = text
            }
        }
    }
}
