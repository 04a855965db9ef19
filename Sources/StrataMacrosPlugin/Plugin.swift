import StrataMacrosSupport
import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin behind `StrataMacros`: only apps that import `StrataMacros` build it. The
/// macros themselves are in `StrataMacrosSupport`, a plain library the tests link: a test target
/// that depended on this macro target would move the whole test build, and every library under
/// it, to the host's build destination, so that everything would be compiled twice.
@main
struct StrataMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [ModelMacro.self, MarkerMacro.self, ToManyNameMacro.self]
}
