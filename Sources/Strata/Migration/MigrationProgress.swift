/// Where a running migration is: published after each batch (see ``OpenOptions/progress``).
public struct MigrationProgress: Sendable, Hashable, CustomStringConvertible {
    /// The stage running, from 1.
    public var stage: Int
    /// How many stages the migration runs.
    public var stages: Int
    /// The version the stage starts from (nil for a store that recorded none).
    public var from: String?
    /// The version the stage ends at (nil for ``MigrationPlan/lightweight``).
    public var to: String?
    /// What the stage is doing: copying an entity's records (its name), or a phase of its own.
    public var phase: Phase
    /// Records of this phase done so far.
    public var done: Int
    /// Records of this phase in all (for a custom stage, 0: its closure's work is not counted).
    public var total: Int

    /// What a stage is doing.
    public enum Phase: Sendable, Hashable, CustomStringConvertible {
        /// Carrying over the records of an entity into the new layout.
        case copying(entity: String)
        /// Running the custom stage's closure.
        case custom
        /// Checking required properties and unique constraints over what the stage wrote.
        case checking(entity: String)
        /// Every stage has run; the store commits.
        case finished

        public var description: String {
            switch self {
            case .copying(let entity): "copying \(entity)"
            case .custom: "custom stage"
            case .checking(let entity): "checking \(entity)"
            case .finished: "finished"
            }
        }
    }

    public var description: String {
        "stage \(stage)/\(stages) (\(from ?? "stored") → \(to ?? "app")): \(phase) \(done)/\(total)"
    }
}
