import Foundation
import StrataStorage

/// What lies after a journal's last readable entry, and what it shows about lost saves.
///
/// A save appends one line and returns only after the line is fsync'd; the next save starts
/// appending after that. So an interrupted save leaves at most **one** incomplete line at the end
/// (a torn append: never acknowledged), and any bytes *after* a complete entry were written by a
/// later save — which proves the entry before them was acknowledged. Recovery uses exactly that
/// evidence and nothing else:
/// - an entry's end is known from its `size` header (``JSONIntegrity/declaredSize(_:)``, a size
///   with its own CRC) or from a `}` + newline that closes it;
/// - an entry whose end is known and is followed by more bytes counts as an acknowledged save
///   that the damage destroyed;
/// - a tail with no such entry, no zero bytes and no closed line is a torn append: the open drops
///   it, and nothing acknowledged was lost;
/// - anything else (zeroed pages, a closed but damaged last line) is damage: a typed error at
///   open unless the caller asks to keep what is readable, and a finding of `verify`. The count
///   of acknowledged saves lost is a lower bound — what the bytes prove, never a guess.
struct JSONJournalTail: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// The journal ends at its last readable entry.
        case none
        /// One incomplete line that no save after it followed: an append interrupted before it
        /// was acknowledged.
        case tornAppend
        /// Damage: complete entries (at least ``JSONJournalTail/acknowledgedLost`` of them
        /// acknowledged) or bytes that cannot be shown to be a torn append.
        case damaged
    }

    /// Where the readable journal ends (the tail's first byte).
    let offset: Int
    /// The tail's length in bytes.
    let length: Int
    /// How many acknowledged saves the tail is shown to have held (a lower bound).
    let acknowledgedLost: Int
    let kind: Kind

    /// Classifies `bytes[offset...]`.
    init(_ bytes: [UInt8], from offset: Int) {
        self.offset = offset
        length = bytes.count - offset
        var acknowledged = 0
        var position = offset
        while position < bytes.count, let end = Self.end(ofEntryAt: position, in: bytes), end < bytes.count {
            acknowledged += 1
            position = end
        }
        acknowledgedLost = acknowledged
        if length == 0 {
            kind = .none
        } else if acknowledged == 0, !bytes[offset...].contains(0), Self.end(ofEntryAt: offset, in: bytes) == nil {
            kind = .tornAppend
        } else {
            kind = .damaged
        }
    }

    /// Where the entry starting at `position` ends (just past its newline), when its header or a
    /// closing `}` + newline shows it; `nil` when the bytes do not show an end.
    private static func end(ofEntryAt position: Int, in bytes: [UInt8]) -> Int? {
        if let size = JSONIntegrity.declaredSize(bytes[position...]), size > 0 {
            let end = position + size
            return end <= bytes.count ? end : nil
        }
        var index = position
        while let newline = bytes[index...].firstIndex(of: 0x0A) {
            if newline > position, bytes[newline - 1] == UInt8(ascii: "}") { return newline + 1 }
            index = newline + 1
        }
        return nil
    }

    /// Whether the tail is damage an open must not pass over silently.
    var isDamage: Bool { kind == .damaged }

    /// The sentence `verify` and the open's error use.
    func describe(journal path: String, lastKept: HistoryToken?) -> String {
        let kept =
            lastKept.map { "the last save kept is history token \($0.value)" } ?? "no save with a history token is kept"
        let lost =
            acknowledgedLost > 0
            ? "at least \(acknowledgedLost) acknowledged save\(acknowledgedLost == 1 ? "" : "s") in them "
                + "\(acknowledgedLost == 1 ? "is" : "are") lost"
            : "they held at least part of one save, which may have been acknowledged"
        return
            "\(path): the last \(length) bytes (from byte \(offset)) are damaged, not a torn append: \(lost); \(kept)"
    }
}

/// What an open did with the end of a JSON store's journal (``JSONFileBackend/journalRecovery``).
public struct JSONJournalRecovery: Sendable, Equatable {
    /// What the end of the journal held.
    public enum Kind: Sendable, Equatable {
        /// An append interrupted before its save was acknowledged: dropped, nothing acknowledged lost.
        case tornAppend
        /// Damage that the open was told to pass over (``JSONFileBackend/Options/keepReadableAfterDamage``):
        /// the damaged bytes were dropped with whatever saves they held.
        case damageDropped
    }

    /// What the end of the journal held.
    public let kind: Kind
    /// Where the kept journal ends.
    public let offset: Int
    /// How many bytes were dropped.
    public let droppedBytes: Int
    /// How many acknowledged saves the dropped bytes are shown to have held (a lower bound; 0 for
    /// a torn append).
    public let acknowledgedSavesLost: Int
    /// The newest history token the kept journal holds (`nil` when no save with history is kept).
    public let lastKeptToken: HistoryToken?
}
