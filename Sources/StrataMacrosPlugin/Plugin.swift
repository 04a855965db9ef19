import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin behind `StrataMacros`: only apps that import `StrataMacros` build it.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ModelMacro.self, MarkerMacro.self, ToManyNameMacro.self]
}
