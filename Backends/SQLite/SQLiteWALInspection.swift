import Foundation
import StrataStorage

/// Reads a write-ahead log the way SQLite's recovery does (the format is SQLite's documented WAL
/// file format), to say what an open will make of it. SQLite itself reports nothing: it uses the
/// frames up to the last valid commit frame and silently ignores the rest, so a damaged WAL rolls
/// the store back to an older state without an error. Verify reports that loss instead.
///
/// - The header (32 bytes, big-endian) carries a magic whose low bit gives the byte order of the
///   checksum words, the page size, two salts and a checksum of its first 24 bytes.
/// - Each frame is a 24-byte header (page number; for a commit frame, the database size after it;
///   the two salts; a checksum) and one page. Checksums are cumulative: each covers the frame's
///   first 8 header bytes and its page, starting from the previous frame's (or the header's).
/// - A frame counts only if its salts match the header's and its checksum holds; recovery stops
///   at the first that fails. Frames with other salts are left over from before the last
///   checkpoint restarted the log: normal, not damage.
struct SQLiteWALInspection {
    /// Frames an open will use (up to and including the last valid commit frame).
    var usableFrames = 0
    /// Commits an open will apply.
    var commits = 0
    /// Commit frames written with this log's salts that an open will ignore, because a frame at or
    /// before them fails its checksum (their frame numbers). Whether each was acknowledged is told
    /// by the wal-index (``indexedFrames``), never assumed: see ``report(into:path:logSize:)``.
    var lostCommitFrames: [Int] = []
    var lostCommits: Int { lostCommitFrames.count }
    /// Frames after the last commit (a transaction that never committed).
    var uncommittedFrames = 0
    /// Why the whole log will be ignored, when it will be.
    var ignoredBecause: String?
    /// The frames the wal-index (`-shm`) says were committed, when it is present, intact and of
    /// this log: more than ``usableFrames`` means the log lost committed frames (cut short, or
    /// damaged in a way the frames alone cannot show).
    var indexedFrames: Int?

    /// Inspects the log at `path` (a missing or empty file is a log with nothing in it) and,
    /// when present, its wal-index `path-shm`.
    init(path: String, indexPath: String) {
        let data = FileManager.default.contents(atPath: path) ?? Data()
        self.init(bytes: [UInt8](data))
        if data.count >= 32, ignoredBecause == nil, let index = FileManager.default.contents(atPath: indexPath) {
            indexedFrames = Self.committedFrames(index: [UInt8](index), logHeader: [UInt8](data.prefix(32)))
        }
    }

    /// The wal-index header's count of committed frames (`mxFrame`), if the header is written
    /// (both copies equal, initialised, version 3007000, native byte order) and its salts are the
    /// log's. The index is a shared-memory file, never synced: it is a witness, not a record.
    static func committedFrames(index: [UInt8], logHeader: [UInt8]) -> Int? {
        guard index.count >= 96, index[0..<48] == index[48..<96], index[12] == 1 else { return nil }
        func native(_ offset: Int) -> UInt32 {
            index[offset..<offset + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        }
        guard native(0) == 3_007_000, index[32..<40].elementsEqual(logHeader[16..<24]) else { return nil }
        return Int(native(16))
    }

    init(bytes: [UInt8]) {
        func word(_ offset: Int) -> UInt32 {
            bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        }
        if bytes.isEmpty { return }
        guard bytes.count >= 32 else {
            ignoredBecause = "it is shorter than its 32-byte header"
            return
        }
        let magic = word(0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else {
            ignoredBecause = "its header's magic number is damaged"
            return
        }
        let bigEndian = magic & 1 == 1
        let pageSize = Int(word(8))
        guard word(4) == 3_007_000, pageSize >= 512, pageSize <= 65_536, pageSize.nonzeroBitCount == 1 else {
            ignoredBecause = "its header's version or page size is damaged"
            return
        }
        var sums = Self.checksum(bytes, 0..<24, bigEndian: bigEndian, from: (0, 0))
        guard sums.0 == word(24), sums.1 == word(28) else {
            ignoredBecause = "its header's checksum does not match"
            return
        }
        let salts = (word(16), word(20))
        let frameSize = 24 + pageSize
        var offset = 32
        var frame = 0
        var valid = true
        var framesSinceCommit = 0
        while offset + frameSize <= bytes.count {
            frame += 1
            let saltsMatch = (word(offset + 8), word(offset + 12)) == salts
            let isCommit = word(offset + 4) != 0
            if valid {
                let next = Self.checksum(bytes, offset..<offset + 8, bigEndian: bigEndian, from: sums)
                let after = Self.checksum(bytes, offset + 24..<offset + frameSize, bigEndian: bigEndian, from: next)
                if saltsMatch, after.0 == word(offset + 16), after.1 == word(offset + 20), word(offset) != 0 {
                    sums = after
                    framesSinceCommit += 1
                    if isCommit {
                        commits += 1
                        usableFrames = frame
                        framesSinceCommit = 0
                    }
                } else {
                    // Recovery stops here. Frames with other salts are left from before the log
                    // restarted; a commit frame with this log's salts further on is a lost commit.
                    valid = false
                    if saltsMatch, isCommit { lostCommitFrames.append(frame) }
                }
            } else if saltsMatch, isCommit {
                lostCommitFrames.append(frame)
            }
            offset += frameSize
        }
        uncommittedFrames = valid ? framesSinceCommit : 0
    }

    /// SQLite's WAL checksum: over 32-bit words in the log's byte order, two running sums.
    static func checksum(_ bytes: [UInt8], _ range: Range<Int>, bigEndian: Bool, from start: (UInt32, UInt32)) -> (
        UInt32, UInt32
    ) {
        var (s0, s1) = start
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            let x0: UInt32
            let x1: UInt32
            if bigEndian {
                x0 =
                    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
                    | UInt32(bytes[offset + 3])
                x1 =
                    UInt32(bytes[offset + 4]) << 24 | UInt32(bytes[offset + 5]) << 16 | UInt32(bytes[offset + 6]) << 8
                    | UInt32(bytes[offset + 7])
            } else {
                x0 =
                    UInt32(bytes[offset + 3]) << 24 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 1]) << 8
                    | UInt32(bytes[offset])
                x1 =
                    UInt32(bytes[offset + 7]) << 24 | UInt32(bytes[offset + 6]) << 16 | UInt32(bytes[offset + 5]) << 8
                    | UInt32(bytes[offset + 4])
            }
            s0 = s0 &+ x0 &+ s1
            s1 = s1 &+ x1 &+ s0
            offset += 8
        }
        return (s0, s1)
    }

    /// Commit frames after a frame that fails its checksum. SQLite writes a commit's frames, then
    /// (when the commit rewrote a page already in the log) fixes the checksums of the frames after
    /// it, and only then records the commit in the wal-index and returns: a process killed in
    /// between leaves exactly this shape for a commit nobody was told of. So the wal-index is the
    /// evidence: a lost commit frame at or below the index's committed count was acknowledged (a
    /// loss, a finding); one above it never was (a note). Without an intact index of this log
    /// nothing shows either way, and verify says so rather than claim a loss.
    private func reportLostCommits(into report: inout VerifyReport, path: String) {
        guard !lostCommitFrames.isEmpty else { return }
        guard let indexedFrames else {
            report.add(
                StrataError(
                    .corruptStore,
                    "\(path): the write-ahead log is damaged or was cut mid-commit "
                        + "after frame \(usableFrames): SQLite will ignore the rest, \(lostCommits) "
                        + "commit\(lostCommits == 1 ? "" : "s") included (the store opens as it was before them); with no "
                        + "wal-index of this log, whether they were acknowledged cannot be told"))
            return
        }
        let acknowledged = lostCommitFrames.filter { $0 <= indexedFrames }.count
        if acknowledged > 0 {
            report.add(
                StrataError(
                    .corruptStore,
                    "\(path): the write-ahead log is damaged after frame "
                        + "\(usableFrames): SQLite will ignore the rest, and \(acknowledged) acknowledged "
                        + "commit\(acknowledged == 1 ? "" : "s") in it (recorded by the wal-index up to frame "
                        + "\(indexedFrames)) \(acknowledged == 1 ? "is" : "are") lost (the store opens as it was before them)"
                ))
        }
        let unacknowledged = lostCommits - acknowledged
        if unacknowledged > 0 {
            report.notes.append(
                "write-ahead log: \(unacknowledged) commit\(unacknowledged == 1 ? "" : "s") "
                    + "interrupted while being written after frame \(usableFrames) (the wal-index never recorded "
                    + "\(unacknowledged == 1 ? "it" : "them"), so no caller was told "
                    + "\(unacknowledged == 1 ? "it" : "they") committed) will be ignored")
        }
    }

    /// What verify says about the log: damage as findings, the rest as notes.
    func report(into report: inout VerifyReport, path: String, logSize: Int) {
        if let ignoredBecause {
            guard logSize > 32 else { return }
            report.add(
                StrataError(
                    .corruptStore,
                    "\(path): the write-ahead log will be ignored because \(ignoredBecause); commits in it not yet copied into the database (\(logSize) bytes of log) are lost"
                ))
            return
        }
        if logSize > 0 {
            report.notes.append("write-ahead log: \(commits) commits in \(usableFrames) frames will be applied at open")
        }
        if let indexedFrames, indexedFrames > usableFrames, lostCommits == 0 {
            report.add(
                StrataError(
                    .corruptStore,
                    "\(path): the write-ahead log holds \(usableFrames) usable frames but its index says \(indexedFrames) were committed: the log was cut short or damaged, and the commits after frame \(usableFrames) are lost (the store opens as it was before them)"
                ))
        }
        reportLostCommits(into: &report, path: path)
        if uncommittedFrames > 0 {
            report.notes.append(
                "write-ahead log: \(uncommittedFrames) frames of a transaction that never committed will be ignored")
        }
    }
}
