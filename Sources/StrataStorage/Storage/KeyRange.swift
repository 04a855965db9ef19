/// Key ranges for backends that keep metadata in an ordered index.
public enum KeyRange {
    /// The smallest string greater than every string starting with `prefix`, so
    /// `key >= prefix AND key < bound` is a prefix scan an index answers (where `LIKE` may not).
    /// Nil when no string is: `prefix` is empty or all U+10FFFF.
    public static func upperBound(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }  // surrogates are not scalars
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                return String(String.UnicodeScalarView(scalars))
            }
        }
        return nil
    }
}
