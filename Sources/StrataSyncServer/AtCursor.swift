import Strata

/// The server's store as a reader at its cursor saw it, as far as a pull's page tells: a record the
/// page changes reads as it was before its first change there (absent before an insert; as it is now
/// when the server did not keep its prior state), every other record as it is now. Whether a
/// changed record was in a reader's scope is judged over it, so a scope that reads through another
/// record — a stop through its trip — sees that record as it was too: a trip deleted in the same
/// cascade as its stops still makes them the reader's, and their deletions reach it.
struct AtCursor: ForwardingReadTransaction {
    let readsGoTo: any StorageReadTransaction
    let first: [RecordKey: (token: HistoryToken, kind: HistoryChange.Kind)]

    func record(_ entity: String, id: RecordID) throws -> Record? {
        let key = RecordKey(entity: entity, id: id)
        guard let (token, kind) = first[key],
            case .some(let prior) = try SyncServer.prior(key, before: token, kind: kind, in: readsGoTo)
        else { return try readsGoTo.record(entity, id: id) }
        return prior
    }
}
