import Synchronization

/// The order of a record's stored values: one slot per stored property name.
///
/// An entity's layout is its attributes (composite fields flattened, in declaration order)
/// followed by its to-one references — ``EntityDescription/storedPropertyNames`` — so attribute
/// `i` is slot `i`. Layouts of the same names are one shared object (interned when a schema or a
/// model declaration is built), so the engine, the codecs and the backends recognise a record in
/// their entity's layout by identity and read its values by position, not by name.
///
/// Records built from a dictionary of names (``Record/init(entity:id:version:values:)``) get a
/// private layout of those names; every reader falls back to names for them.
public final class RecordLayout: Sendable, CustomStringConvertible {
    /// The property name of each slot.
    public let names: [String]
    /// The slots in the order of their names (for writers of stably ordered text).
    public let slotsByName: [Int]
    private let slotByName: [String: Int]

    private init(names: [String]) {
        self.names = names
        var slots: [String: Int] = [:]
        slots.reserveCapacity(names.count)
        for (slot, name) in names.enumerated() where slots[name] == nil { slots[name] = slot }
        self.slotByName = slots
        self.slotsByName = names.indices.sorted { names[$0] < names[$1] }
    }

    /// The slot holding `name`, or nil when the layout has no such property.
    @inline(__always)
    public func slot(_ name: String) -> Int? { slotByName[name] }

    /// The number of slots.
    public var count: Int { names.count }

    public var description: String { "RecordLayout(\(names.joined(separator: ", ")))" }

    /// The one layout of these names, shared by every schema and declaration that stores them.
    /// Only schemas and declarations intern (a bounded set); ad-hoc layouts are private, so names
    /// from outside (a sync peer, a file) cannot grow this table.
    package static func shared(_ names: [String]) -> RecordLayout {
        interned.withLock { table in
            if let layout = table[names] { return layout }
            let layout = RecordLayout(names: names)
            table[names] = layout
            return layout
        }
    }

    /// A layout of `names` used by one record only.
    static func adHoc(_ names: [String]) -> RecordLayout { RecordLayout(names: names) }

    /// The layout of no names.
    static let empty = shared([])

    /// This layout's names plus `name`: a private layout.
    func adding(_ name: String) -> RecordLayout { RecordLayout(names: names + [name]) }

    private static let interned = Mutex<[[String]: RecordLayout]>([:])
}
