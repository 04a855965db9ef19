import Foundation
import Strata
import StrataSync

/// Applying pushes: each client's mutations at most once, a failing mutation set aside and the
/// rest of the batch applied, write checks for an identity.
extension SyncServer {

    public func push(_ request: PushRequest) async throws -> PushResponse {
        try await push(request, as: nil)
    }

    /// Applies a client's batch on behalf of `identity` (`nil`: trusted, unscoped). With an
    /// identity, the client ID is bound to it on its first push (another identity using it is
    /// `StrataError.Code.permissionDenied`) and every mutation passes `access`'s write checks.
    ///
    /// A batch that deletes a record and then inserts one with the same ID again (a client's
    /// separate saves, batched by its outbox: a string ID reused, an undone delete) is applied as
    /// the client saved it — the delete with its rules, then the new record — in one commit per
    /// such boundary (see ``PushSegments``); each commit keeps its own bookkeeping, so a resend
    /// after a failure between them answers the committed part as duplicates.
    public func push(_ request: PushRequest, as identity: SyncIdentity?) async throws -> PushResponse {
        try SyncWire.checkVersion("push", request.version)
        try checkSchemaVersion(request.schemaVersion)
        var results: [MutationResult] = []
        for segment in PushSegments.split(request.mutations) {
            var part = request
            part.mutations = segment
            results += try await pushSegment(part, as: identity).results
        }
        return PushResponse(results: results)
    }

    /// Applies mutations that one save can hold (no record deleted and inserted again).
    private func pushSegment(_ request: PushRequest, as identity: SyncIdentity?) async throws -> PushResponse {
        var rejected: [MutationID: StrataError] = [:]
        // Each failing mutation is set aside and the batch retried without it.
        for _ in 0...request.mutations.count {
            do {
                return try await apply(request, as: identity, rejecting: rejected)
            } catch let error as StrataError
                where ![.storeClosed, .storageFailure, .diskFull, .permissionDenied].contains(error.code)
            {
                guard let culprit = culprit(of: error, in: request.mutations, excluding: rejected) else { throw error }
                rejected[culprit] = error
            }
        }
        throw StrataError(.storageFailure, "push could not be applied")
    }

    /// The mutation an error names (the last put or delete of that record), if any.
    private func culprit(
        of error: StrataError, in mutations: [SyncMutation], excluding rejected: [MutationID: StrataError]
    ) -> MutationID? {
        let candidates = mutations.filter { rejected[$0.id] == nil }
        if let entity = error.entity, let id = error.recordID {
            let ofRecord = candidates.filter { $0.entity == entity && $0.recordID == id }
            // The put that set the property the error names; otherwise the record's last mutation.
            let setting = error.property.flatMap { property in
                ofRecord.last { $0.values[property] != nil || $0.links[property] != nil }
            }
            if let match = setting ?? ofRecord.last { return match.id }
        }
        // An error naming a record the batch did not touch directly (a delete rule reaching it):
        // blame the first delete, then the first mutation.
        return candidates.first(where: { $0.kind == .delete })?.id ?? candidates.first?.id
    }

    private func apply(
        _ request: PushRequest, as identity: SyncIdentity?, rejecting rejected: [MutationID: StrataError]
    ) async throws -> PushResponse {
        let application = PushApplication(
            request: request, identity: identity, rejected: rejected, policies: policies, access: access)
        return try await store.commit(
            author: request.clientID, contextName: Self.contextName, participants: store.extraParticipants,
            collectWritten: true,
            stage: { session, reader in
                var staged = application
                try staged.stage(session, reader)
                return staged
            }
        ) { staged, outcome, transaction in
            var staged = staged
            try staged.settle(outcome, in: transaction)
            try staged.recordBookkeeping(in: transaction)
            return try staged.response(outcome, in: transaction)
        }
    }
}
