/// A schema from the app's typed models: each model's `Entity` declaration becomes an
/// `EntityDescription`.
extension Schema {
    /// Builds a schema from typed model declarations.
    public init(_ models: any PersistentModel.Type...) throws {
        try self.init(models: models)
    }

    /// Builds a schema from typed model declarations.
    public init(models: [any PersistentModel.Type]) throws {
        try self.init(entities: try models.map { try $0.entityDescription() })
    }
}
