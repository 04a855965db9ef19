import Foundation
import StrataStorage

/// Checks a data file against its own meta pages before LMDB maps it. LMDB reads the meta pages
/// with `pread`, then reaches every other page through a memory map: a page past the end of a
/// truncated file is a SIGBUS that kills the process, so a file shorter than its meta pages
/// declare must be refused before `mdb_env_open` — as a typed error, with the file untouched.
enum LMDBFileCheck {
    static let magic: UInt32 = 0xBEEF_C0DE

    /// One meta page's fields that size the file (LMDB's `MDB_meta` on a 64-bit build: a 16-byte
    /// page header, then magic, version, address, map size, two `MDB_db`s of 48 bytes — the first
    /// one's `md_pad` holds the page size — then the last page number and the transaction ID).
    struct Meta {
        var pageSize: Int
        var lastPage: UInt64
        var transaction: UInt64
    }

    static func meta(_ bytes: [UInt8], at offset: Int) -> Meta? {
        func read<T: FixedWidthInteger>(_ position: Int, _: T.Type) -> T? {
            let start = offset + position
            guard start >= 0, start + MemoryLayout<T>.size <= bytes.count else { return nil }
            var value: T = 0
            for index in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(bytes[start + index]) }
            return value  // little-endian, as LMDB writes it on this platform
        }
        guard read(16, UInt32.self) == magic, let pageSize = read(40, UInt32.self),
            let lastPage = read(136, UInt64.self),
            let transaction = read(144, UInt64.self), pageSize >= 512, pageSize <= 65_536, pageSize.nonzeroBitCount == 1
        else { return nil }
        return Meta(pageSize: Int(pageSize), lastPage: lastPage, transaction: transaction)
    }

    /// Throws `StrataError.Code.corruptStore` when `data.mdb` in `directory` is shorter than
    /// the newest valid meta page says it is. Files without a valid meta page are left to LMDB,
    /// which reports them (`MDB_INVALID`: not an LMDB store).
    static func check(directory: String) throws {
        let path = directory + "/data.mdb"
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        let head = Array((try? handle.read(upToCount: 4_096)) ?? Data())
        guard let first = meta(head, at: 0) else { return }
        var newest = first
        try handle.seek(toOffset: UInt64(first.pageSize))
        let second = Array((try? handle.read(upToCount: 160)) ?? Data())
        if let other = meta(second, at: 0), other.pageSize == first.pageSize, other.transaction > first.transaction {
            newest = other
        }
        // The size is read after the meta pages: another process committing meanwhile writes its
        // pages before its meta page, so a size read later covers every meta page read before it
        // (read first, a commit in between made a sound file look truncated).
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let (pages, overflow) = newest.lastPage.addingReportingOverflow(1)
        let (required, tooLarge) = pages.multipliedReportingOverflow(by: UInt64(newest.pageSize))
        if overflow || tooLarge || required > UInt64(size) {
            throw StrataError(
                .corruptStore,
                "\(path) is truncated: its meta page declares "
                    + "\(overflow || tooLarge ? "an impossible size" : "\(required) bytes"), the file has \(size)"
            )
        }
    }
}
