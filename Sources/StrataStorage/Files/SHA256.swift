/// SHA-256 (FIPS 180-4), fed in pieces, whose running state can be saved and restored between
/// whole 64-byte blocks: a file upload that stops is hashed on from where it stopped. Written here
/// so the storage module needs no cryptography library.
package struct SHA256: Sendable, Hashable {
    private var state: [UInt32] = [
        0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19,
    ]
    /// Bytes fed so far.
    package private(set) var count: Int64 = 0
    /// Bytes fed that do not fill a block yet.
    private var pending: [UInt8] = []

    package init() {}

    /// The running state after whole blocks (`count` a multiple of 64, nothing pending): eight
    /// words and the count, 40 bytes, for `init(saved:)`.
    package var saved: [UInt8]? {
        guard pending.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        for word in state { bytes += withUnsafeBytes(of: word.bigEndian, Array.init) }
        bytes += withUnsafeBytes(of: UInt64(count).bigEndian, Array.init)
        return bytes
    }

    /// The hasher a `saved` state names, or `nil` when the bytes are not one.
    package init?(saved bytes: [UInt8]) {
        guard bytes.count == 40 else { return nil }
        var words: [UInt32] = []
        for index in 0..<8 {
            words.append(bytes[index * 4..<index * 4 + 4].reduce(0) { $0 << 8 | UInt32($1) })
        }
        let count = bytes[32..<40].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard count % 64 == 0, count <= UInt64(Int64.max) else { return nil }
        state = words
        self.count = Int64(count)
    }

    package mutating func update<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        count += Int64(bytes.count)
        var rest = bytes[...]
        if !pending.isEmpty {
            let taken = rest.prefix(64 - pending.count)
            pending += taken
            rest = rest.dropFirst(taken.count)
            guard pending.count == 64 else { return }
            let block = pending
            pending = []
            compress(block[...])
        }
        let whole = rest.count / 64 * 64
        if whole > 0 {
            let blocks = Array(rest.prefix(whole))
            var start = 0
            while start < blocks.count {
                compress(blocks[start..<start + 64])
                start += 64
            }
        }
        pending = Array(rest.dropFirst(whole))
    }

    /// The digest of everything fed, as 64 lowercase hexadecimal digits.
    package func finish() -> String {
        var copy = self
        let bits = UInt64(count) &* 8
        var tail = pending + [0x80]
        while tail.count % 64 != 56 { tail.append(0) }
        tail += withUnsafeBytes(of: bits.bigEndian, Array.init)
        copy.pending = []
        var start = 0
        while start < tail.count {
            copy.compress(tail[start..<start + 64])
            start += 64
        }
        let digits: [Character] = Array("0123456789abcdef")
        var text = ""
        text.reserveCapacity(64)
        for word in copy.state {
            for shift in stride(from: 28, through: 0, by: -4) { text.append(digits[Int(word >> UInt32(shift) & 0xf)]) }
        }
        return text
    }

    /// The digest of `bytes`.
    package static func digest<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        var hasher = SHA256()
        hasher.update(bytes)
        return hasher.finish()
    }

    private mutating func compress(_ block: ArraySlice<UInt8>) {
        var schedule = [UInt32](repeating: 0, count: 64)
        var index = block.startIndex
        for word in 0..<16 {
            schedule[word] =
                UInt32(block[index]) << 24 | UInt32(block[index + 1]) << 16 | UInt32(block[index + 2]) << 8
                | UInt32(block[index + 3])
            index += 4
        }
        for word in 16..<64 {
            let early = schedule[word - 15]
            let late = schedule[word - 2]
            let sigma0 = early.rotatedRight(7) ^ early.rotatedRight(18) ^ (early >> 3)
            let sigma1 = late.rotatedRight(17) ^ late.rotatedRight(19) ^ (late >> 10)
            schedule[word] = schedule[word - 16] &+ sigma0 &+ schedule[word - 7] &+ sigma1
        }
        var (a, b, c, d, e, f, g, h) = (state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7])
        for round in 0..<64 {
            let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = (e & f) ^ (~e & g)
            let first = h &+ sum1 &+ choice &+ Self.constants[round] &+ schedule[round]
            let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) ^ (a & c) ^ (b & c)
            let second = sum0 &+ majority
            (h, g, f, e, d, c, b, a) = (g, f, e, d &+ first, c, b, a, first &+ second)
        }
        state[0] &+= a
        state[1] &+= b
        state[2] &+= c
        state[3] &+= d
        state[4] &+= e
        state[5] &+= f
        state[6] &+= g
        state[7] &+= h
    }

    private static let constants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]
}

extension UInt32 {
    @inline(__always) fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { self >> count | self << (32 - count) }
}
