import Foundation
import Synchronization

/// Writes one declared stored property of a model from a record's value: the read-side twin of
/// `ValueEncoder`. Returns false when the stored value does not convert, and the record is then
/// decoded through `Codable`, which names the problem in its error.
struct ValueDecoder<Model>: Sendable {
    /// Writes the converted value into the model whose bytes start at the pointer.
    let decode: @Sendable (Value, UnsafeMutableRawPointer) -> Bool
    /// The stored property name, for records in another layout.
    let name: String
    /// The property's place in the entity's `RecordLayout` (set by ``Entity``).
    var slot = 0

    init(name: String, _ decode: @escaping @Sendable (Value, UnsafeMutableRawPointer) -> Bool) {
        self.name = name
        self.decode = decode
    }

    /// Writes the value stored under `name`, converted, at the byte offset of `keyPath`'s stored
    /// property (what the compiler does for `model.property = value`, with the same retain and
    /// release); nil when the key path is not a stored property of a struct. The common types
    /// convert through `ConcreteWriters` (no generic code, so no type metadata looked up per
    /// value); others through `convert`. The model's bytes are borrowed once per record by the
    /// caller, not once per property.
    static func writing<V>(
        _ keyPath: any KeyPath<Model, V> & Sendable, stored name: String, _ convert: @escaping @Sendable (Value) -> V?
    ) -> ValueDecoder? {
        guard let offset = MemoryLayout<Model>.offset(of: keyPath) else { return nil }
        if let writer = ConcreteWriters.table[ObjectIdentifier(V.self)] {
            return ValueDecoder(name: name) { value, base in writer(value, base.advanced(by: offset)) }
        }
        return ValueDecoder(name: name) { value, base in
            guard let value = convert(value) else { return false }
            base.advanced(by: offset).assumingMemoryBound(to: V.self).pointee = value
            return true
        }
    }
}

/// Record → model through the entity declaration's key paths: no `Codable` round trip on reads.
///
/// A model is built by copying a template — the first record of its type decoded through
/// `Codable` — and writing each declared stored property and the ID into the copy. That holds
/// only when the declaration covers everything the model stores, and the ID is a plain value
/// (UUID or integer) whose place in the model can be found: the first `verifiedRecords` records
/// of each type are decoded both ways and compared (through their `Codable` encoding), and any
/// difference sends that type through `Codable` for good. Composites are not yet written this
/// way, so models with one keep `Codable`.
enum KeyPathDecoding {
    static let verifiedRecords = 64

    /// Everything a type's reads need, looked up once (per type, then per fetch) rather than
    /// per record: generic metadata built from the model type is a runtime lookup each time.
    struct Prepared<M: PersistentModel>: Sendable {
        let template: M
        let idOffset: Int
        let idWriter: ConcreteWriters.Writer
        let decoders: [ValueDecoder<M>]
        let layout: RecordLayout

        /// A copy of the template with the ID and every declared property written from `record`;
        /// nil when a stored value does not convert.
        func build(_ record: Record) -> M? {
            withUnsafePointer(to: record) { build(at: $0) }
        }

        /// The model of the record at `record`, read in place.
        func build(at record: UnsafePointer<Record>) -> M? {
            var model = template
            // The slots taken once: a method called on the record for each property copied the
            // whole record each time.
            let slots = record.pointee.layout === layout ? record.pointee.slots : nil
            let built = withUnsafeMutableBytes(of: &model) { raw -> Bool in
                guard let base = raw.baseAddress, idWriter(record.pointee.id.value, base.advanced(by: idOffset)) else {
                    return false
                }
                if let slots {
                    for decoder in decoders where !decoder.decode(slots[decoder.slot], base) { return false }
                } else {
                    for decoder in decoders where !decoder.decode(record.pointee[decoder.name], base) { return false }
                }
                return true
            }
            return built ? model : nil
        }
    }

    private enum Verdict {
        /// Still comparing; `candidates` are decoders for each place in the template that held
        /// the ID of every record so far.
        case verifying(remaining: Int, candidates: [any Sendable])
        case keyPaths(any Sendable)
        case codable
    }

    private static let verdicts = Mutex<[ObjectIdentifier: Verdict]>([:])

    static func decode<M: PersistentModel>(_ type: M.Type, from record: Record) throws -> M {
        try decodeAll(M.self, [record])[0]
    }

    /// Every record as a model, in order.
    static func decodeAll<M: PersistentModel>(_ type: M.Type, _ records: [Record]) throws -> [M] {
        let key = ObjectIdentifier(M.self)
        var models: [M] = []
        models.reserveCapacity(records.count)
        var index = 0
        while index < records.count {
            switch verdicts.withLock({ $0[key] }) {
            case .codable?:
                for record in records[index...] { models.append(try RecordDecoder.decode(M.self, from: record)) }
                return models
            case .keyPaths(let prepared)?:
                guard let prepared = prepared as? Prepared<M> else {
                    for record in records[index...] { models.append(try RecordDecoder.decode(M.self, from: record)) }
                    return models
                }
                // Through the buffer: iterating the array would copy each record.
                // By pointer: even a buffer's subscript handed `build` a copy of each record (two
                // retains and releases apiece, a third of a fetch's time).
                try records.withUnsafeBufferPointer { buffer in
                    guard let base = buffer.baseAddress else { return }
                    for position in index..<buffer.count {
                        if let model = prepared.build(at: base + position) {
                            models.append(model)
                        } else {
                            models.append(try RecordDecoder.decode(M.self, from: buffer[position]))
                        }
                    }
                }
                return models
            case .verifying(let remaining, let candidates)?:
                let record = records[index]
                let model = try RecordDecoder.decode(M.self, from: record)
                let agreeing = candidates.filter { candidate in
                    (candidate as? Prepared<M>).map { agree($0.build(record), model) } ?? false
                }
                verdicts.withLock {
                    $0[key] =
                        agreeing.isEmpty
                        ? .codable
                        : remaining <= 1
                            ? (agreeing.count == 1 ? .keyPaths(agreeing[0]) : .codable)
                            : .verifying(remaining: remaining - 1, candidates: agreeing)
                }
                models.append(model)
            case nil:
                let model = try RecordDecoder.decode(M.self, from: records[index])
                let candidates = prepare(model)
                verdicts.withLock {
                    $0[key] =
                        candidates.isEmpty ? .codable : .verifying(remaining: verifiedRecords, candidates: candidates)
                }
                models.append(model)
            }
            index += 1
        }
        return models
    }

    /// Whether records of `type` are now decoded through key paths alone.
    static func usesKeyPaths<M: PersistentModel>(_ type: M.Type) -> Bool {
        verdicts.withLock { if case .keyPaths? = $0[ObjectIdentifier(type)] { true } else { false } }
    }

    /// A prepared decoder per place in `model`'s bytes that holds its ID, for IDs that are plain
    /// values (no references inside: UUIDs and integers) with a concrete writer. Several places
    /// can match one record by chance; only those that agree on every verified record survive.
    private static func prepare<M: PersistentModel>(_ model: M) -> [any Sendable] {
        let entity = M.entity
        guard _isPOD(M.ID.self), MemoryLayout<M.ID>.size > 0, let decoders = entity.decoders,
            let idWriter = ConcreteWriters.table[ObjectIdentifier(M.ID.self)]
        else { return [] }
        let id = withUnsafeBytes(of: model.id) { Array($0) }
        let offsets = withUnsafeBytes(of: model) { bytes in
            stride(from: 0, through: bytes.count - id.count, by: MemoryLayout<M.ID>.alignment).filter { offset in
                bytes[offset..<offset + id.count].elementsEqual(id)
            }
        }
        return offsets.map {
            Prepared(template: model, idOffset: $0, idWriter: idWriter, decoders: decoders, layout: entity.layout)
        }
    }

    /// Whether two models store the same record (compared through their `Codable` form).
    private static func agree<M: PersistentModel>(_ built: M?, _ decoded: M) -> Bool {
        guard let built, let a = try? RecordEncoder.encode(built), let b = try? RecordEncoder.encode(decoded) else {
            return false
        }
        return a.id == b.id && !a.differs(from: b)
    }
}
