import Strata

/// One behaviour of the contract, runnable against any backend.
public struct ConformanceCheck: Sendable, Hashable, CustomStringConvertible {
    public let category: ConformanceCategory
    public let name: String
    /// Features the backend must declare for the check to run; otherwise it is skipped with the reason.
    public let requirements: Set<BackendFeature>
    let body: @Sendable (ConformanceContext) async throws -> Void

    init(
        _ category: ConformanceCategory, _ name: String, requires requirements: Set<BackendFeature> = [],
        _ body: @escaping @Sendable (ConformanceContext) async throws -> Void
    ) {
        self.category = category
        self.name = name
        self.requirements = requirements
        self.body = body
    }

    /// `Category/name`, unique across the suite.
    public var id: String { "\(category.rawValue)/\(name)" }
    public var description: String { id }

    public static func == (lhs: ConformanceCheck, rhs: ConformanceCheck) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// The suite's categories, one source file each.
public enum ConformanceCategory: String, Sendable, Hashable, CaseIterable {
    case crud = "CRUD"
    case queries = "Queries"
    case values = "Values"
    case relationships = "Relationships"
    case deleteRules = "DeleteRules"
    case validation = "Validation"
    case atomicity = "Atomicity"
    case history = "History"
    case mergePolicies = "MergePolicies"
    case offlineFirst = "OfflineFirst"
    case faults = "Faults"
    case differential = "Differential"
    case storage = "Storage"
    case observation = "Observation"
    case migration = "Migration"
    case transport = "Transport"
    case tools = "Tools"
    case aggregates = "Aggregates"
}
