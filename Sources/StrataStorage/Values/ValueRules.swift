import Foundation

/// The value rules every backend shares (the value contract), applied once by the engine to every
/// value on its way in — record values, IDs and query constants — so backends only ever store and
/// compare values that already follow them:
///
/// - text is Unicode NFC, so canonically equivalent strings are the same bytes everywhere and
///   UTF-8 byte order (the order every backend sorts by) is Unicode scalar order;
/// - `Double.nan` is refused with ``StrataError/Code/validationFailed`` (it has no place in a total
///   order); ±infinity are ordinary values;
/// - a date must be finite (its `timeIntervalSinceReferenceDate` is what every backend stores);
/// - a string ID is 1 to ``RecordID/maximumStringIDLength`` UTF-8 bytes after normalisation (an
///   empty ID is refused: it is almost always a field nobody set, and key-value stores cannot key
///   on it).
public enum ValueRules {
    /// `text` in Unicode Normalization Form C.
    ///
    /// Every scalar below U+0300 is NFC-stable and never combines with what precedes it, and in
    /// UTF-8 such scalars use only bytes below 0xCC; text made only of those bytes (ASCII, Latin-1)
    /// is returned as it is, without Foundation's normaliser.
    @inlinable
    public static func nfc(_ text: String) -> String {
        if isNFCStable(text) { return text }
        return text.precomposedStringWithCanonicalMapping
    }

    @usableFromInline
    static func isNFCStable(_ text: String) -> Bool {
        if let stable = text.utf8.withContiguousStorageIfAvailable({ bytes in !bytes.contains { $0 >= 0xCC } }) {
            return stable
        }
        return !text.utf8.contains { $0 >= 0xCC }
    }

    /// The value with its text normalised, and −0 as 0 (they compare equal; one bit pattern keeps
    /// every backend's round trip bit-exact). Other values are returned unchanged.
    @inlinable
    public static func normalized(_ value: Value) -> Value {
        replacement(for: value) ?? value
    }

    /// What `normalized(_:)-(Value)` would change `value` into, or `nil` when it is already normal (the
    /// common case, which costs no allocation).
    @inlinable
    public static func replacement(for value: Value) -> Value? {
        switch value {
        case .string(let text) where !isNFCStable(text): return .string(text.precomposedStringWithCanonicalMapping)
        case .double(let number) where number == 0 && number.sign == .minus: return .double(0)
        case .date(let date)
        where date.timeIntervalSinceReferenceDate == 0 && date.timeIntervalSinceReferenceDate.sign == .minus:
            return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .decimal(let number) where !DecimalForm.isCanonical(number): return .decimal(DecimalForm.canonical(number))
        default: return nil
        }
    }

    /// The ID with its text normalised.
    @inlinable
    public static func normalized(_ id: RecordID) -> RecordID {
        if case .string(let text) = id, !isNFCStable(text) {
            return .string(text.precomposedStringWithCanonicalMapping)
        }
        return id
    }

    /// Why `value` can never be stored, or `nil` when it can. `value` is already normalised.
    public static func violation(of value: Value) -> String? {
        switch value {
        case .double(let number) where number.isNaN:
            return "NaN is not a storable number (it has no place in the order every backend sorts by)"
        case .decimal(let number) where number.isNaN:
            return "NaN is not a storable decimal (it has no place in the order every backend sorts by)"
        case .date(let date) where !date.timeIntervalSinceReferenceDate.isFinite:
            return "a date must be a finite time"
        default:
            return nil
        }
    }

    /// Whether `id` is within the length every backend can hold: a string ID of 1 to
    /// ``RecordID/maximumStringIDLength`` bytes. No record has any other, so looking one up finds
    /// nothing on every backend.
    public static func isStorable(_ id: RecordID) -> Bool {
        if case .string(let text) = id { return !text.isEmpty && text.utf8.count <= RecordID.maximumStringIDLength }
        return true
    }

    /// Fails with ``StrataError/Code/validationFailed`` naming the record and `id` when a string ID
    /// is empty or longer than every backend can hold.
    package static func requireStorable(_ id: RecordID, entity: String) throws {
        guard !isStorable(id) else { return }
        guard case .string(let text) = id, !text.isEmpty else {
            throw StrataError(
                .validationFailed, entity: entity, recordID: id, property: "id",
                "a string ID may not "
                    + "be empty")
        }
        throw StrataError(
            .validationFailed, entity: entity, recordID: id, property: "id",
            "a string ID may be at most \(RecordID.maximumStringIDLength) UTF-8 bytes in NFC; this one has \(id.description.utf8.count)"
        )
    }
}

extension RecordID {
    /// The longest string ID, in UTF-8 bytes after NFC normalisation, on every backend. Longer
    /// IDs (and the empty one) are refused on insert (``StrataError/Code/validationFailed``) and,
    /// since no record can have one, looking one up finds nothing.
    public static let maximumStringIDLength = 255
}
