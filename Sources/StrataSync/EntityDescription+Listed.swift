import Strata

extension EntityDescription {
    /// Whether records of the entity are listed many-to-many by others (`Tag.trips` lists `Trip`s):
    /// the lists naming such a record live with the records listing it, so one that arrives, comes
    /// back or meets the server's copy has them read again (``OwnerRefresh``).
    var isListedManyToMany: Bool { relationships.contains { $0.storage == .inverseLinks } }
}
