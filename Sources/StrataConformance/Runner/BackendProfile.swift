/// What a backend claims to be. Every check a claimed profile needs must run: a check skipped for a
/// feature the profile requires is reported as a failure, not a skip — a backend that claims to be
/// persistent but gives no `reopen` hook fails every check that reopens a store.
public enum BackendProfile: String, Sendable, Hashable, CaseIterable {
    /// Its data outlives the store's handle: requires ``BackendFeature/reopen``. The suite then
    /// checks on-disk atomicity with nothing else declared — a save that failed at any write, or
    /// at commit, must be absent after a reopen.
    case persistent
    /// It survives a killed process: requires ``BackendFeature/reopen`` and ``BackendFeature/abruptStop``.
    case crashSafe
    /// It can be migrated and reopened with another schema: requires ``BackendFeature/migrate``
    /// and ``BackendFeature/reopenWithAnotherSchema``.
    case migrating
    /// Its data can be open through several handles and processes at once: requires
    /// ``BackendFeature/secondHandle`` and ``BackendFeature/otherProcesses``.
    case shared

    /// The features every check of the profile needs.
    public var requiredFeatures: Set<BackendFeature> {
        switch self {
        case .persistent: [.reopen]
        case .crashSafe: [.reopen, .abruptStop]
        case .migrating: [.migrate, .reopenWithAnotherSchema]
        case .shared: [.secondHandle, .otherProcesses]
        }
    }
}
