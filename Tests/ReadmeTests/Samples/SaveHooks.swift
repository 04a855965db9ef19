// swift-format-ignore-file
// (DocC blocks are held here verbatim: ReadmeSampleTests compares them.)
// Modelling article, "Save hooks".
import Foundation
import Strata

func hookedStore(_ url: String, schema: Schema) async throws -> Store {
    var hooks = SaveHooks()
    hooks.beforeValidation("trim names", Trip.self) { trip, _ in
        trip.name = trip.name.trimmingCharacters(in: .whitespaces)
    }
    hooks.afterValidation("no empty names", Trip.self) { trip, change in
        if let trip, trip.name.isEmpty { throw StrataError(.validationFailed, "a trip needs a name") }
    }
    hooks.afterCommit("log") { save in print("committed \(save.changes.count) changes at \(save.token)") }
    return try await Store.open(url, schema: schema, options: OpenOptions(hooks: hooks))
}
