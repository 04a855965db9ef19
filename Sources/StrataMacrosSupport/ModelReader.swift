import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// Reads a `@Model` struct's members into the entity's member expressions, diagnosing what the
/// explicit form would find only at the first save.
struct ModelReader<Context: MacroExpansionContext> {
    let context: Context
    /// The entity's members, as `Entity` spells them (`.attribute(\.name)`, `.toOne(…)`, …).
    var members: [String] = []
    /// Every stored (coded) property, `id` included, in declaration order.
    var codedNames: [String] = []
    var hasID = false
    var hasTransient = false
    /// The struct declares `static let constraints` (compound indexes, unique constraints, checks).
    var hasConstraints = false

    mutating func read(_ block: MemberBlockSyntax) {
        for member in block.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.isStatic {
                if variable.bindings.contains(where: {
                    $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "constraints"
                }) {
                    hasConstraints = true
                }
                if let relationship = variable.attribute("Relationship") { readToMany(variable, relationship) }
                continue
            }
            let bindings = Array(variable.bindings)
            for (index, binding) in bindings.enumerated() {
                // `var a, b: Int`: the type is written on the last binding.
                let type = bindings[index...].lazy.compactMap(\.typeAnnotation?.type).first
                readStored(variable, binding, type: type)
            }
        }
    }

    private mutating func readStored(_ variable: VariableDeclSyntax, _ binding: PatternBindingSyntax, type: TypeSyntax?)
    {
        guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, binding.isStored else {
            return
        }
        if name == "id" {
            hasID = true
            codedNames.append(name)
            return
        }
        if variable.attribute("Transient") != nil {
            hasTransient = true
            if binding.initializer == nil {
                context.diagnose(Diagnostic(node: binding, message: ModelDiagnostic.transientWithoutValue(name)))
            }
            return
        }
        codedNames.append(name)
        if variable.isLet && binding.initializer != nil {
            context.diagnose(Diagnostic(node: binding, message: ModelDiagnostic.letWithValue(name)))
            return
        }
        if let type, let unsupported = ModelSyntax.unsupported(type) {
            context.diagnose(Diagnostic(node: type, message: ModelDiagnostic.unsupportedType(name, unsupported)))
            return
        }
        if type == nil, binding.initializer.flatMap({ ModelSyntax.literal($0.value) }) == nil {
            context.diagnose(Diagnostic(node: binding, message: ModelDiagnostic.untyped(name)))
            return
        }
        if let relationship = variable.attribute("Relationship") {
            readToOne(name, type: type, relationship, at: binding)
        } else if let timestamp = variable.attribute("Timestamp") {
            members.append(".timestamp(\\.\(name)\(ModelSyntax.arguments(of: timestamp, leading: true)))")
        } else if let derived = variable.attribute("Derived") {
            members.append(".derived(\\.\(name)\(ModelSyntax.arguments(of: derived, leading: true)))")
        } else {
            members.append(
                ModelSyntax.attribute(name, variable.attribute("Attribute"), initial: binding.initializer?.value))
        }
    }

}

/// The syntax `@Model` reads and writes, free of any expansion context.
enum ModelSyntax {
    /// `.attribute(\.name, name:, default:, indexed:, unique:, rules:, renamedFrom:)`, or
    /// `.composite(\.name)`; a literal initial value is the default unless one is given.
    static func attribute(_ name: String, _ marker: AttributeSyntax?, initial: ExprSyntax?) -> String {
        let arguments = marker.map(ModelSyntax.labeled) ?? []
        let options = Set(arguments.filter { $0.label == nil }.map { String($0.text.filter { $0 != " " }) })
        if options.contains(".composite") { return ".composite(\\.\(name))" }
        var parts = ["\\.\(name)"]
        func add(_ label: String) {
            if let value = arguments.first(where: { $0.label == label }) { parts.append("\(label): \(value.text)") }
        }
        add("name")
        if arguments.contains(where: { $0.label == "default" }) {
            add("default")
        } else if let initial, let literal = literal(initial) {
            parts.append("default: \(literal)")
        }
        if options.contains(".indexed") { parts.append("indexed: true") }
        if options.contains(".unique") { parts.append("unique: true") }
        add("rules")
        add("renamedFrom")
        return ".attribute(\(parts.joined(separator: ", ")))"
    }
}

extension ModelReader {

    private mutating func readToOne(
        _ name: String, type: TypeSyntax?, _ marker: AttributeSyntax, at binding: PatternBindingSyntax
    ) {
        let arguments = ModelSyntax.labeled(marker)
        let destination =
            arguments.first { $0.label == "to" }.map(\.text).map { $0.hasSuffix(".self") ? $0 : "\($0).self" }
            ?? type.flatMap(ModelSyntax.destination).map { "\($0).self" }
        guard let destination else {
            context.diagnose(Diagnostic(node: binding, message: ModelDiagnostic.unknownDestination(name)))
            return
        }
        var parts = ["\\.\(name)", destination]
        for label in ["inverse", "deleteRule", "renamedFrom"] {
            if let value = arguments.first(where: { $0.label == label }) { parts.append("\(label): \(value.text)") }
        }
        members.append(".toOne(\(parts.joined(separator: ", ")))")
    }

    private mutating func readToMany(_ variable: VariableDeclSyntax, _ marker: AttributeSyntax) {
        guard let binding = variable.bindings.first,
            let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
        else { return }
        let declared = binding.typeAnnotation?.type.trimmedDescription ?? binding.initializer?.value.trimmedDescription
        guard let declared, declared.hasPrefix("ToMany<") || declared.hasPrefix("Strata.ToMany<") else {
            context.diagnose(Diagnostic(node: binding, message: ModelDiagnostic.toManyNotToMany(name)))
            return
        }
        let arguments = ModelSyntax.labeled(marker)
        var parts = [name]
        for label in ["inverse", "ordered", "deleteRule", "minCount", "maxCount", "renamedFrom"] {
            if let value = arguments.first(where: { $0.label == label }) { parts.append("\(label): \(value.text)") }
        }
        members.append(".toMany(\(parts.joined(separator: ", ")))")
    }
}

extension ModelSyntax {
    /// A marker's arguments as written: label (nil when unlabeled) and expression text.
    static func labeled(_ attribute: AttributeSyntax) -> [(label: String?, text: String)] {
        guard let list = attribute.arguments?.as(LabeledExprListSyntax.self) else { return [] }
        return list.map { ($0.label?.text, $0.expression.trimmedDescription) }
    }

    /// A marker's arguments passed on as they are: `", .creation, indexed: true"`.
    static func arguments(of attribute: AttributeSyntax, leading: Bool) -> String {
        let list = labeled(attribute).map { argument in
            argument.label.map { "\($0): \(argument.text)" } ?? argument.text
        }
        return list.isEmpty ? "" : (leading ? ", " : "") + list.joined(separator: ", ")
    }

    /// The destination a to-one's type names: `Person` of `Person.ID?` or `Person.ID`.
    static func destination(_ type: TypeSyntax) -> String? {
        let unwrapped = type.as(OptionalTypeSyntax.self)?.wrappedType ?? type
        guard let member = unwrapped.as(MemberTypeSyntax.self), member.name.text == "ID" else { return nil }
        return member.baseType.trimmedDescription
    }

    /// Why a type cannot be stored (its spelling), or nil: collections, tuples and closures.
    static func unsupported(_ type: TypeSyntax) -> String? {
        let unwrapped =
            type.as(OptionalTypeSyntax.self)?.wrappedType
            ?? type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self)?.wrappedType ?? type
        // Arrays, sets and text-keyed dictionaries of scalars are attributes; collections of
        // collections, other keys, functions and tuples are not.
        if let array = unwrapped.as(ArrayTypeSyntax.self) {
            return isCollection(array.element) ? type.trimmedDescription : nil
        }
        if let dictionary = unwrapped.as(DictionaryTypeSyntax.self) {
            let textKey = dictionary.key.as(IdentifierTypeSyntax.self)?.name.text == "String"
            return !textKey || isCollection(dictionary.value) ? type.trimmedDescription : nil
        }
        if unwrapped.is(FunctionTypeSyntax.self) { return type.trimmedDescription }
        if let tuple = unwrapped.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first { return unsupported(only.type) }
            return type.trimmedDescription
        }
        if let attributed = unwrapped.as(AttributedTypeSyntax.self) { return unsupported(attributed.baseType) }
        if let named = unwrapped.as(IdentifierTypeSyntax.self) {
            if named.name.text == "Set", let element = named.genericArgumentClause?.arguments.first,
                case .type(let elementType) = element.argument
            {
                return isCollection(elementType) ? type.trimmedDescription : nil
            }
            if ["Array", "Dictionary", "Set", "ContiguousArray"].contains(named.name.text) {
                return type.trimmedDescription
            }
        }
        return nil
    }

    /// Whether an element type is itself a collection (or optional, a function or a tuple): what a
    /// collection attribute cannot hold.
    private static func isCollection(_ element: TypeSyntax) -> Bool {
        if element.is(OptionalTypeSyntax.self) || element.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        return unsupported(element) != nil || element.is(ArrayTypeSyntax.self) || element.is(DictionaryTypeSyntax.self)
            || element.as(IdentifierTypeSyntax.self).map { ["Set", "Array", "Dictionary"].contains($0.name.text) }
                == true
    }

    /// A literal initial value a schema default can take as written, or nil.
    static func literal(_ expression: ExprSyntax) -> String? {
        if expression.is(BooleanLiteralExprSyntax.self) || expression.is(IntegerLiteralExprSyntax.self)
            || expression.is(FloatLiteralExprSyntax.self)
        {
            return expression.trimmedDescription
        }
        if let string = expression.as(StringLiteralExprSyntax.self),
            string.segments.allSatisfy({ $0.is(StringSegmentSyntax.self) })
        {
            return expression.trimmedDescription
        }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
            prefix.expression.is(IntegerLiteralExprSyntax.self) || prefix.expression.is(FloatLiteralExprSyntax.self)
        {
            return expression.trimmedDescription
        }
        if let member = expression.as(MemberAccessExprSyntax.self), member.base == nil {
            return expression.trimmedDescription  // an enum case: `.draft`
        }
        return nil
    }
}

extension PatternBindingSyntax {
    /// Whether the binding stores a value: no accessors, or only observers (`willSet`, `didSet`).
    var isStored: Bool {
        guard let block = accessorBlock else { return true }
        switch block.accessors {
        case .getter: return false
        case .accessors(let list):
            return list.allSatisfy {
                [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind)
            }
        }
    }
}
