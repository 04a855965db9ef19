/// A context's undo and redo stacks: each group holds, for every record and to-many membership its
/// changes touched, the state to put back — a record as the context showed it before (`nil`: not
/// there), a membership's list. Undoing a group puts those states back through the context's own
/// bookkeeping and records the states it replaced as the group redo puts back, as Foundation's
/// `UndoManager` registers a redo while it undoes.
struct ContextUndo {
    /// One undoable step: the states to restore, in the order first touched.
    struct Group {
        var name: String?
        var records = OrderedMap<RecordKey, Record?>()
        var memberships = OrderedMap<LinkKey, MembershipState>()

        var isEmpty: Bool { records.isEmpty && memberships.isEmpty }
    }

    /// A to-many's state to put back: a list the context set (its own entry), or the list its
    /// records gave it (no entry of its own; the list is what it showed, for after a save).
    enum MembershipState {
        case set([RecordID])
        case derived([RecordID])
    }

    /// Whether changes are recorded (off by default: recording keeps a copy of every state replaced).
    var isEnabled = false
    /// At most this many groups are kept (the oldest are dropped); 0 keeps every group.
    var levels = 100
    private(set) var undoStack: [Group] = []
    private(set) var redoStack: [Group] = []
    /// The group being recorded and how many calls and explicit groups are open around it.
    private var recording: Group?
    private var depth = 0
    /// Where the group being recorded goes when it closes: the undo stack for changes and redos,
    /// the redo stack while undoing.
    private var target = Target.undo

    enum Target { case undo, redo, redoAfterRedo }

    var isRecording: Bool { recording != nil }

    /// Opens a group, or joins the one open (a call inside an explicit group, `upsert` calling
    /// `insert`).
    mutating func open(named name: String? = nil) {
        guard isEnabled else { return }
        if depth == 0 { recording = Group(name: name) }
        depth += 1
    }

    /// Closes the innermost open; the outermost pushes its group if it recorded anything. A new
    /// change (not an undo or a redo) clears the redo stack, as `UndoManager` does.
    mutating func close() {
        guard isEnabled, depth > 0 else { return }
        depth -= 1
        guard depth == 0, let group = recording else { return }
        recording = nil
        defer { target = .undo }
        guard !group.isEmpty else { return }
        switch target {
        case .undo:
            redoStack.removeAll()
            undoStack = trimmed(undoStack + [group])
        case .redoAfterRedo:
            undoStack = trimmed(undoStack + [group])
        case .redo:
            redoStack = trimmed(redoStack + [group])
        }
    }

    /// Remembers `state` as what `key` showed before the open group, unless already remembered.
    mutating func note(_ key: RecordKey, _ state: Record?) {
        guard recording != nil, recording?.records[key] == nil else { return }
        recording?.records[key] = .some(state)
    }

    /// Whether the open group has yet to remember a membership's state.
    func needsNote(_ key: LinkKey) -> Bool { recording != nil && recording?.memberships[key] == nil }

    /// Remembers a membership's state before the open group, unless already remembered.
    mutating func note(_ key: LinkKey, _ state: MembershipState) {
        guard recording != nil, recording?.memberships[key] == nil else { return }
        recording?.memberships[key] = state
    }

    /// Takes the group `undo()` (or `redo()`) puts back and opens the group that records its
    /// inverse for the other stack.
    mutating func begin(undoing: Bool) -> Group? {
        guard isEnabled, depth == 0, let group = undoing ? undoStack.popLast() : redoStack.popLast() else {
            return nil
        }
        target = undoing ? .redo : .redoAfterRedo
        open(named: group.name)
        return group
    }

    /// Puts `group` back where `begin(undoing:)` took it from (applying it failed).
    mutating func abandon(_ group: Group, undoing: Bool) {
        recording = nil
        depth = 0
        target = .undo
        if undoing { undoStack.append(group) } else { redoStack.append(group) }
    }

    /// Whether a save's delete rules are worth recording for the groups on the undo stack.
    var recordsSaves: Bool { isEnabled && !undoStack.isEmpty }

    /// Adds what a save's delete rules removed under `root` to the newest group on the undo stack
    /// that deleted it (the group noted it as there before): undoing that group puts the whole
    /// graph back. A state the group noted already stays.
    mutating func attach(_ restoration: SaveExpansions.Restoration, deleting root: RecordKey) {
        guard
            let index = undoStack.lastIndex(where: { group in
                if case .some(.some) = group.records[root] { return true }
                return false
            })
        else { return }
        for (key, state) in restoration.records.entries where undoStack[index].records[key] == nil {
            undoStack[index].records[key] = .some(state)
        }
        for (key, list) in restoration.lists.entries where undoStack[index].memberships[key] == nil {
            undoStack[index].memberships[key] = .set(list)
        }
    }

    mutating func removeAll() {
        undoStack.removeAll()
        redoStack.removeAll()
    }

    private func trimmed(_ stack: [Group]) -> [Group] {
        levels > 0 && stack.count > levels ? Array(stack.suffix(levels)) : stack
    }
}
