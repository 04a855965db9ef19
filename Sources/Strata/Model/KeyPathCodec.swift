import Synchronization

/// Reads one declared stored property (or a composite's fields) off a model into a record's
/// slots, starting at `base` (its place in the entity's `RecordLayout`, set by ``Entity``).
struct ValueEncoder<Model>: Sendable {
    let encode: @Sendable (Model, inout [Value], Int) -> Void
    var base = 0
    init(_ encode: @escaping @Sendable (Model, inout [Value], Int) -> Void) { self.encode = encode }

    /// An encoder that reads `keyPath`'s value and hands it to `store`. A key path to a stored
    /// property is read at its byte offset in the model (what the compiler does for a literal
    /// `model.property`): applying a key path through the runtime cost as much as the `Codable`
    /// round trip it replaces. Other key paths are applied as key paths.
    static func reading<V>(
        _ keyPath: any KeyPath<Model, V> & Sendable, _ store: @escaping @Sendable (inout [Value], Int, V) -> Void
    ) -> ValueEncoder {
        if let offset = MemoryLayout<Model>.offset(of: keyPath) {
            return ValueEncoder { model, slots, base in
                store(&slots, base, withUnsafeBytes(of: model) { $0.load(fromByteOffset: offset, as: V.self) })
            }
        }
        return ValueEncoder { model, slots, base in store(&slots, base, model[keyPath: keyPath]) }
    }
}

/// Model → record through the entity declaration's key paths: no `Codable` round trip on the hot
/// path (the encoder built a dictionary through a keyed container, a string key at a time).
///
/// The declaration and the model's `Codable` form must agree — every stored property declared, no
/// custom encoding that stores something else. Rather than trust that, the first
/// `verifiedRecords` records of each model type are encoded both ways and compared (a null and
/// an absent value are equal); any difference sends that type through `Codable` for good, so an
/// undeclared property still fails the save with `unknownProperty` as before.
enum KeyPathCodec {
    static let verifiedRecords = 64

    private enum Verdict {
        case verifying(remaining: Int)
        case keyPaths
        case codable
    }

    private static let verdicts = Mutex<[ObjectIdentifier: Verdict]>([:])

    static func record<M: PersistentModel>(_ model: M) throws -> Record {
        let type = ObjectIdentifier(M.self)
        let verdict = verdicts.withLock { $0[type] ?? .verifying(remaining: verifiedRecords) }
        switch verdict {
        case .codable:
            return try RecordEncoder.encode(model)
        case .keyPaths:
            return encode(model)
        case .verifying(let remaining):
            let codable = try RecordEncoder.encode(model)
            let viaKeyPaths = encode(model)
            let agrees = !viaKeyPaths.differs(from: codable)
            verdicts.withLock {
                $0[type] = !agrees ? .codable : remaining <= 1 ? .keyPaths : .verifying(remaining: remaining - 1)
            }
            return codable
        }
    }

    /// Many models of one type as records, the verdict and the declaration looked up once (generic
    /// metadata built from the model type is a runtime lookup each time it is needed).
    static func records<M: PersistentModel>(_ models: [M]) throws -> [Record] {
        var records: [Record] = []
        records.reserveCapacity(models.count)
        // One at a time while the type is being verified, then the rest as a batch.
        var index = 0
        while index < models.count, index <= verifiedRecords, !usesKeyPaths(M.self) {
            records.append(try record(models[index]))
            index += 1
        }
        guard index < models.count else { return records }
        guard usesKeyPaths(M.self) else { return records + (try models[index...].map(record)) }
        let entity = M.entity
        let name = entity.name
        let layout = entity.layout
        let encoders = entity.encoders
        for model in models[index...] { records.append(encode(model, name: name, layout: layout, encoders: encoders)) }
        return records
    }

    /// Whether records of `type` are now encoded through key paths alone.
    static func usesKeyPaths<M: PersistentModel>(_ type: M.Type) -> Bool {
        verdicts.withLock { if case .keyPaths? = $0[ObjectIdentifier(type)] { true } else { false } }
    }

    private static func encode<M: PersistentModel>(_ model: M) -> Record {
        let entity = M.entity
        return encode(model, name: entity.name, layout: entity.layout, encoders: entity.encoders)
    }

    private static func encode<M: PersistentModel>(
        _ model: M, name: String, layout: RecordLayout, encoders: [ValueEncoder<M>]
    ) -> Record {
        var slots = [Value](repeating: .null, count: layout.count)
        for encoder in encoders { encoder.encode(model, &slots, encoder.base) }
        return Record(entity: name, id: model.id.recordID, layout: layout, slots: slots)
    }
}
