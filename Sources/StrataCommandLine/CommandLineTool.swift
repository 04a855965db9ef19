import ArgumentParser

/// The commands both executables share, and what they say about themselves.
public enum CommandLineTool {
    /// The tool's one-line description.
    public static let abstract =
        "Strata: Core Data–grade persistence for Swift service layers, over pluggable backends."

    /// Every command over a store that both `strata` and `strata-full` have.
    public static let commands: [any ParsableCommand.Type] = [
        Demo.self, Inspect.self, QueryCommand.self, Export.self, Import.self, Copy.self, Verify.self, Migrate.self,
        SchemaCommand.self,
    ]
}
