import Strata

/// One behaviour of the contract, runnable against any backend.
public struct ConformanceCheck: Sendable, Hashable, CustomStringConvertible {
    /// The category, one source file of checks.
    public let category: ConformanceCategory
    /// The check's name, unique in its category.
    public let name: String
    /// Features the backend must declare for the check to run; otherwise it is skipped with the reason.
    public let requirements: Set<BackendFeature>
    /// Where the check is defined (a failure that has no line of its own is reported here).
    public let fileID: String
    let filePath: String
    let line: Int
    let body: @Sendable (ConformanceContext) async throws -> Void

    init(
        _ category: ConformanceCategory, _ name: String, requires requirements: Set<BackendFeature> = [],
        fileID: String = #fileID, filePath: String = #filePath, line: Int = #line,
        _ body: @escaping @Sendable (ConformanceContext) async throws -> Void
    ) {
        self.category = category
        self.name = name
        self.requirements = requirements
        self.fileID = fileID
        self.filePath = filePath
        self.line = line
        self.body = body
    }

    /// A failure reported at the check's definition.
    func failure(_ message: String) -> ConformanceFailure {
        ConformanceFailure(message, fileID: fileID, filePath: filePath, line: line)
    }

    /// `Category/name`, unique across the suite.
    public var id: String { "\(category.rawValue)/\(name)" }
    public var description: String { id }

    public static func == (lhs: ConformanceCheck, rhs: ConformanceCheck) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// The suite's categories, one source file each.
public enum ConformanceCategory: String, Sendable, Hashable, CaseIterable {
    /// Inserts, reads, updates and deletes.
    case crud = "CRUD"
    /// Filters, sorts, pages and counts.
    case queries = "Queries"
    /// Every value kind stored exactly and ordered alike.
    case values = "Values"
    /// Links, inverses and their storage.
    case relationships = "Relationships"
    /// Cascade, nullify, deny and noAction.
    case deleteRules = "DeleteRules"
    /// Rules, required values and uniqueness.
    case validation = "Validation"
    /// A failed save leaves nothing behind.
    case atomicity = "Atomicity"
    /// The history of every save.
    case history = "History"
    /// Contexts' conflicts resolved by each policy.
    case mergePolicies = "MergePolicies"
    /// The outbox and sync, in process.
    case offlineFirst = "OfflineFirst"
    /// Failures injected at writes and commits.
    case faults = "Faults"
    /// Seeded random operations compared with the reference backend.
    case differential = "Differential"
    /// What the storage SPI promises.
    case storage = "Storage"
    /// Live queries, diffs and change streams.
    case observation = "Observation"
    /// Schema evolution.
    case migration = "Migration"
    /// Sync through a transport, with its faults.
    case transport = "Transport"
    /// What the tools rely on.
    case tools = "Tools"
    /// Count, sum, average, min and max, grouped or not.
    case aggregates = "Aggregates"
    /// Streamed reads in batches and what they see while others write.
    case streams = "Streams"
    /// Undo and redo of a context's staged changes.
    case undo = "Undo"
    /// Contexts nested in contexts.
    case nestedContexts = "NestedContexts"
    /// Sectioned results.
    case sections = "Sections"
    /// The app's save hooks.
    case hooks = "Hooks"
    /// Attributes the engine derives: counts, folded text, functions.
    case derived = "Derived"
    /// Full-text search: words, phrases, relevance, and the index kept on every write path.
    case search = "Search"
    /// Sync subscriptions: what a client receives, brings and evicts as it subscribes.
    case subscriptions = "Subscriptions"
    /// Sync sharing: a record shared by its owner, roles enforced on every route, revoking evicts.
    case sharing = "Sharing"
    /// Files beside the records: streamed, stored once, freed with their last record, resumed, checked.
    case files = "Files"
    /// Hostile requests over every transport: nothing crashes the server or answers a 5xx, nothing
    /// escapes a scope.
    case adversary = "Adversary"
    /// Seeded runs of several clients and a server over a simulated faulty network and clock:
    /// everyone converges, nothing acknowledged is lost, and a seed replays byte for byte.
    case simulation = "Simulation"
}
