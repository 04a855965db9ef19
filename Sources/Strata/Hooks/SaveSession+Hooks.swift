/// The app's save hooks (``SaveHooks``) in the pipeline: before validation each changed record
/// once — records a hook's change stages (an inverse kept) get their turn after it — and after
/// validation each changed record once more, refusing the save when a hook throws.
extension SaveSession {
    func runBeforeValidationHooks() throws {
        guard !hooks.before.isEmpty else { return }
        var hooked = Set<RecordKey>()
        while true {
            let pending = workingSet.staged.map(\.key).filter { !hooked.contains($0) && change(of: $0) != nil }
            if pending.isEmpty { return }
            for key in pending {
                hooked.insert(key)
                guard var change = change(of: key) else { continue }
                let before = change.record
                for hook in hooks.before where hook.entity == nil || hook.entity == key.entity {
                    do { try hook.body(&change) } catch { throw refusal(error, hook.name, key) }
                }
                guard change.kind != .delete, let changed = change.record, changed != before else { continue }
                guard changed.entity == key.entity, changed.id == key.id else {
                    throw StrataError(
                        .refusedByHook, entity: key.entity, recordID: key.id,
                        "a hook may change a record's values, not its entity or ID")
                }
                try update(changed)
            }
        }
    }

    func runAfterValidationHooks() throws {
        guard !hooks.after.isEmpty else { return }
        for entry in workingSet.staged {
            let key = entry.key
            guard let change = change(of: entry) else { continue }
            for hook in hooks.after where hook.entity == nil || hook.entity == key.entity {
                do { try hook.body(change) } catch { throw refusal(error, hook.name, key) }
            }
        }
    }

    /// What the save does to the record at `key`, or nil when it does nothing to it.
    private func change(of key: RecordKey) -> SaveChange? {
        workingSet.entry(key).flatMap(change(of:))
    }

    private func change(of entry: WorkingSet.Entry) -> SaveChange? {
        let key = entry.key
        guard entry.original != entry.current else { return nil }
        let kind: SaveChange.Kind = entry.current == nil ? .delete : entry.original == nil ? .insert : .update
        return SaveChange(kind: kind, entity: key.entity, id: key.id, record: entry.current, original: entry.original)
    }

    /// A hook's error as the save's: `refusedByHook`, naming the hook and the record, with what it
    /// threw as the underlying error (its message kept).
    private func refusal(_ error: any Error, _ hook: String, _ key: RecordKey) -> StrataError {
        let reason = (error as? StrataError)?.message ?? "\(error)"
        return StrataError(
            .refusedByHook, entity: key.entity, recordID: key.id, underlying: error,
            "hook \"\(hook)\" refused the save: \(reason)")
    }
}
