import Foundation

/// A date attribute the engine keeps itself (Fluent's `@Timestamp`, Rails' `created_at`/`updated_at`).
///
/// Every save stamps it with the save's time — one time for every record of the save — whatever
/// the model held: a ``creation`` attribute when the record is inserted (an update keeps the stored
/// value, whatever the model says), a ``modification`` attribute when it is inserted and whenever a
/// save changes any other property or membership of it. Loads, copies and a sync client's
/// application of pulled changes keep the values they bring.
public enum AutomaticTimestamp: String, Sendable, Codable, Hashable {
    /// Set once, when the record is inserted.
    case creation
    /// Set when the record is inserted and at every save that changes it.
    case modification
}
