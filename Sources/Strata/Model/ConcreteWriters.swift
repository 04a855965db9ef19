import Foundation

/// Converters that write a stored value straight into a property of a known type, one per
/// common attribute type and its optional. Each performs the conversion `fromAttributeValue`
/// (and the `Codable` path) performs.
enum ConcreteWriters {
    typealias Writer = @Sendable (Value, UnsafeMutableRawPointer) -> Bool

    // Written out per type: a closure generic over the type would look up `Optional<T>`'s
    // metadata on every call, which cost more than the conversion.
    static let table: [ObjectIdentifier: Writer] = [
        ObjectIdentifier(Int.self): { value, pointer in
            guard let converted = Int.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Int.self).pointee = converted
            return true
        },
        ObjectIdentifier(Int?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Int?.self).pointee = nil
                return true
            }
            guard let converted = Int.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Int?.self).pointee = converted
            return true
        },
        ObjectIdentifier(Int64.self): { value, pointer in
            guard let converted = Int64.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Int64.self).pointee = converted
            return true
        },
        ObjectIdentifier(Int64?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Int64?.self).pointee = nil
                return true
            }
            guard let converted = Int64.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Int64?.self).pointee = converted
            return true
        },
        ObjectIdentifier(Int32.self): { value, pointer in
            guard let converted = Int32.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Int32.self).pointee = converted
            return true
        },
        ObjectIdentifier(Int32?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Int32?.self).pointee = nil
                return true
            }
            guard let converted = Int32.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Int32?.self).pointee = converted
            return true
        },
        ObjectIdentifier(Double.self): { value, pointer in
            guard let converted = Double.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Double.self).pointee = converted
            return true
        },
        ObjectIdentifier(Double?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Double?.self).pointee = nil
                return true
            }
            guard let converted = Double.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Double?.self).pointee = converted
            return true
        },
        ObjectIdentifier(Float.self): { value, pointer in
            guard let converted = Float.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Float.self).pointee = converted
            return true
        },
        ObjectIdentifier(Float?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Float?.self).pointee = nil
                return true
            }
            guard let converted = Float.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Float?.self).pointee = converted
            return true
        },
        ObjectIdentifier(Bool.self): { value, pointer in
            guard let converted = Bool.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Bool.self).pointee = converted
            return true
        },
        ObjectIdentifier(Bool?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Bool?.self).pointee = nil
                return true
            }
            guard let converted = Bool.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Bool?.self).pointee = converted
            return true
        },
        ObjectIdentifier(String.self): { value, pointer in
            guard let converted = String.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: String.self).pointee = converted
            return true
        },
        ObjectIdentifier(String?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: String?.self).pointee = nil
                return true
            }
            guard let converted = String.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: String?.self).pointee = converted
            return true
        },
        ObjectIdentifier(Date.self): { value, pointer in
            guard let converted = Date.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Date.self).pointee = converted
            return true
        },
        ObjectIdentifier(Date?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Date?.self).pointee = nil
                return true
            }
            guard let converted = Date.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Date?.self).pointee = converted
            return true
        },
        ObjectIdentifier(UUID.self): { value, pointer in
            guard let converted = UUID.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: UUID.self).pointee = converted
            return true
        },
        ObjectIdentifier(UUID?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: UUID?.self).pointee = nil
                return true
            }
            guard let converted = UUID.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: UUID?.self).pointee = converted
            return true
        },
        ObjectIdentifier(Decimal.self): { value, pointer in
            guard let converted = Decimal.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Decimal.self).pointee = converted
            return true
        },
        ObjectIdentifier(Decimal?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Decimal?.self).pointee = nil
                return true
            }
            guard let converted = Decimal.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Decimal?.self).pointee = converted
            return true
        },
        ObjectIdentifier(Data.self): { value, pointer in
            guard let converted = Data.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Data.self).pointee = converted
            return true
        },
        ObjectIdentifier(Data?.self): { value, pointer in
            if value.isNull {
                pointer.assumingMemoryBound(to: Data?.self).pointee = nil
                return true
            }
            guard let converted = Data.fromAttributeValue(value) else { return false }
            pointer.assumingMemoryBound(to: Data?.self).pointee = converted
            return true
        },
    ]
}
