import Foundation
import Strata
import StrataSync
import StrataSyncServer

/// The steps of a run, each drawn from the seed against the acting client's own records: creates
/// into the shared ID pools, same-property edits, re-parenting, link changes, cascading, nullifying
/// and denied deletes, the server's own writes, syncs over the faulty network, held-back pushes
/// arriving late, subscriptions narrowed, widened, renewed, dropped or left to expire, trips shared
/// and shares revoked, tokens expiring and sign-ins refused for a while, and restarts of a client's
/// engine or of the server.
extension SimulationWorld {
    /// Draws and runs one step; returns its trace line.
    mutating func step() async throws -> String {
        clock.advance(1)
        let index = random.below(clients.count)
        let client = clients[index]
        let roll = random.below(100)
        switch roll {
        case 16..<18 where shares: return try await shareChange(index)
        case 18..<20 where !remoteServers: return signInChange(index)
        case 20..<22 where changesSubscriptions: return try await changeSubscriptions(index)
        case 0..<22: return try await sync(index)
        case 22..<24:
            try restart(index)
            return "\(client.name) restarts"
        case 24..<25:
            await restartServer()
            return "the server restarts"
        case 25..<28:
            try await client.network.deliverHeldBack()
            return "\(client.name)'s held-back push arrives (if any)"
        case 28..<31: return try await serverEdit()
        default: return try await local(client, roll: roll)
        }
    }

    private mutating func sync(_ index: Int) async throws -> String {
        let client = clients[index]
        var line = "\(client.name) syncs"
        do {
            let report = try await client.engine.syncNow()
            line += ": pushed \(report.pushed), pulled \(report.pulled), rejected \(report.rejected)"
        } catch let error as SyncTransportError {
            line += ": failed (\(error.kind))"
        } catch let error as StrataError {
            // Not a fault of the network: a client that cannot apply what it pulled, or push.
            line += ": failed: \(error)"
        }
        let log = await client.network.takeLog()
        return pools.shortened(([line] + log.map { "  " + $0 }).joined(separator: "\n"))
    }

    /// Client `index`'s token expires before its lifetime is up, or its sign-in is refused (its
    /// token revoked, no refresh given) until a later step allows it again.
    private mutating func signInChange(_ index: Int) -> String {
        switch random.below(4) {
        case 0, 1:
            tokens.expire(index)
            return "c\(index)'s token expires"
        case 2:
            tokens.refuse(index, true)
            return "c\(index)'s sign-in is refused"
        default:
            tokens.refuse(index, false)
            return "c\(index) may sign in again"
        }
    }

    /// A write of the server's own, through its store (``SyncServer/store``, which keeps what a
    /// pull needs to tell readers what left their scope).
    private mutating func serverEdit() async throws -> String {
        let trips = try await server.store.repository(Trip.self).fetch()
        guard !trips.isEmpty else { return "the server has no trip to edit" }
        var trip = trips[random.below(trips.count)]
        trip.name = "server \(random.below(1000))"
        try await server.store.repository(Trip.self).update(trip)
        return "the server renames trip \(pools.name(trip.id)) to \(trip.name)"
    }

    /// A local write of `client`, chosen by `roll` (31..<100); a write its store refuses (a deny,
    /// a bound) is traced with the refusal's code.
    private mutating func local(_ client: SimulatedClient, roll: Int) async throws -> String {
        let store = client.store
        let (shares, index) = (self.shares, client.index)
        var edit = SimulationEdit(store: store, pools: pools, name: client.name) { slot in
            shares ? Self.email(slot: slot, client: index) : nil
        }
        do {
            switch roll {
            case 31..<41: return try await edit.createTrip(&random)
            case 41..<49: return try await edit.renameTrip(&random)
            case 49..<53: return try await edit.budgetTrip(&random)
            case 53..<61: return try await edit.createStop(&random)
            case 61..<66: return try await edit.moveStop(&random)
            case 66..<69: return try await edit.editStop(&random)
            case 69..<73: return try await edit.deleteTrip(&random)
            case 73..<75: return try await edit.deleteStop(&random)
            case 75..<80: return try await edit.tagTrip(&random)
            case 80..<83: return try await edit.untagTrip(&random)
            case 83..<86: return try await edit.createTag(&random)
            case 86..<87: return try await edit.deleteTag(&random)
            case 87..<90: return try await edit.createPerson(&random)
            case 90..<93: return try await edit.assignTraveller(&random)
            case 93..<94: return try await edit.deletePerson(&random)
            case 94..<96: return try await edit.createAgency(&random)
            case 96..<98: return try await edit.book(&random)
            default: return try await edit.deleteAgency(&random)
            }
        } catch let error as StrataError {
            return "\(edit.last): refused (\(error.code.rawValue))"
        }
    }
}

extension SimulationPools {
    /// `text` with every pooled UUID it names replaced by its short name.
    func shortened(_ text: String) -> String {
        var text = text
        for id in people + trips + stops where text.contains(id.uuidString) {
            text = text.replacingOccurrences(of: id.uuidString, with: name(id))
        }
        return text
    }

    /// A short stable name for a pooled ID, for traces.
    func name(_ id: UUID) -> String {
        if let index = people.firstIndex(of: id) { return "p\(index)" }
        if let index = trips.firstIndex(of: id) { return "t\(index)" }
        if let index = stops.firstIndex(of: id) { return "s\(index)" }
        return id.uuidString
    }
}
