/// What deleting a record does to the destinations of one of its relationships.
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// Surviving destinations lose their reference to the deleted record. If that empties a
    /// required relationship, the save fails validation.
    case nullify
    /// Destinations are deleted too, recursively, each under its own rules; cycles terminate.
    case cascade
    /// The delete fails if any destination would survive the save. Destinations deleted in the
    /// same save do not count; a deny anywhere in a cascade aborts the whole save.
    case deny
    /// Nothing is touched: destinations keep a dangling reference, which reads as "not found".
    case noAction
}
